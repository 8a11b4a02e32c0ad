"""``python -m collabrl`` is the ``collabrl`` command."""

from collabrl.cli import main

main()

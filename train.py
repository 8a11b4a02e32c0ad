"""Train a collabrl policy: ``python train.py recipe=NAME key=value ...``.

Also the target of ``accelerate launch train.py recipe=...``; both run
:func:`collabrl.training.loop.recipe_main` through the CLI, which turns user errors into one line.
"""

import sys

from collabrl.cli import main

if __name__ == "__main__":
    main(["train", *sys.argv[1:]])

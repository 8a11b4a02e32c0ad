"""Train a collabrl policy: ``python train.py recipe=NAME key=value ...``.

Also the target of ``accelerate launch train.py recipe=...``; both run the same code.
"""

import sys

from collabrl.cli import main

if __name__ == "__main__":
    main(["train", *sys.argv[1:]])

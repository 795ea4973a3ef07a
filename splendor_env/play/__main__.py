"""``python -m splendor_env.play``: a game of Splendor in the terminal (see
:mod:`splendor_env.play.terminal`)."""

import sys

from splendor_env.play.terminal import main

sys.exit(main())

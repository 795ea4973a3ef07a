"""``python -m splut_env.play``: a game in the terminal (see :mod:`splut_env.play.terminal`)."""

import sys

from splut_env.play.terminal import main

sys.exit(main())

"""``python -m talat_env.play``: a game of Talat in the terminal (see
:mod:`talat_env.play.terminal`)."""

import sys

from talat_env.play.terminal import main

sys.exit(main())

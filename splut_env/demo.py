"""``python -m splut_env.demo``: the bot demo, kept at this name for the command line (the
code is :mod:`splut_env.play.demo`)."""

from splut_env.play.demo import main

if __name__ == "__main__":
    main()

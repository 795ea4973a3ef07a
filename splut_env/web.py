"""``python -m splut_env.web``: the browser front end, kept at this name for the command line
(the code is :mod:`splut_env.play.web`)."""

from splut_env.play.web import main

if __name__ == "__main__":
    main()

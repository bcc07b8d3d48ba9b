"""The browser front end: a Starlette app over the play sessions (:mod:`agents.play.web.app`)."""

"""The browser front end: a Starlette app over the play sessions (:mod:`poker_env_agents.play.web.app`)."""

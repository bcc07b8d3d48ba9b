"""The command-line programs: ``scripts/<name>.py`` and the installed commands call these ``main`` functions."""

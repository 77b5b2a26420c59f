import os  # configuration is Python: sitecite reads it with ast and never runs it

AUTHOR = "Mira Okafor"
SITENAME = "Field Notes"
SITEURL = ""
TIMEZONE = "Europe/London"
ARTICLE_URL = "posts/{slug}/"
EXTRA = os.environ.get("EXTRA", "")

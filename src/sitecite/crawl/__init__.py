"""Live sites: discover pages (robots.txt, sitemaps, links) and fetch them politely.

The only layer that talks to the network; `ingest` stays pure and reads what this fetched.
"""

from __future__ import annotations

from sitecite.crawl.fetch import USER_AGENT
from sitecite.crawl.site import CrawlOptions, CrawlRecord, CrawlResult, crawl, url_page_id

__all__ = ["USER_AGENT", "CrawlOptions", "CrawlRecord", "CrawlResult", "crawl", "url_page_id"]

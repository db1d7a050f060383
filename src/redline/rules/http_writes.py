"""HTTP requests that delete on a service: the `DELETE` method sent with
curl, wget, HTTPie or xh, and Elasticsearch/OpenSearch `_delete_by_query`
(issue 13, family 9). The service behind a URL is often a database."""

from __future__ import annotations

from redline.decision import Severity
from redline.rules import argv
from redline.rules.model import Rule, rule
from redline.shell.analysis import Analysis
from redline.shell.invocation import Invocation

D = Severity.DANGEROUS

# curl's options that take a value, so `-H 'X: DELETE'` is not read as a method.
_CURL_VALUES = (
    "XdHoueAbcCEFKmrTtwxyYzQDPU",
    ("request", "data", "data-raw", "data-binary", "data-urlencode", "header", "output",
     "user", "user-agent", "referer", "form", "upload-file", "proxy", "write-out", "url",
     "cookie", "cookie-jar", "config", "max-time", "connect-timeout", "json", "cacert",
     "cert", "key", "resolve", "retry", "range", "quote", "dump-header", "proxy-user"),
)  # fmt: skip
_HTTPIE = ("http", "https", "xh", "xhs")
# HTTPie's and xh's options that take a value, so `-a user:pw` is not the method.
_HTTPIE_VALUES = ("aApso", ("auth", "auth-type", "print", "style", "output", "session",
                            "session-read-only", "verify", "cert", "cert-key", "proxy", "timeout",
                            "pretty", "format-options", "ssl", "default-scheme", "boundary",
                            "max-redirects", "max-headers", "response-charset",
                            "response-mime", "bearer"))  # fmt: skip


def _http_delete(inv: Invocation, analysis: Analysis) -> bool:
    values = inv.values
    if any("_delete_by_query" in v for v in values):
        return True
    if inv.name == "curl":
        methods = argv.parse(values, *_CURL_VALUES).value("-X", "--request")
    elif inv.name == "wget":
        methods = argv.parse(values, "", ("method",)).value("--method")
    else:
        methods = argv.parse(values, *_HTTPIE_VALUES).operands[:1]
    return any(m.strip().upper() == "DELETE" for m in methods)


HTTP_RULES: tuple[Rule, ...] = (
    rule(
        "net.http-delete",
        "network",
        D,
        "an HTTP `DELETE` request, or an Elasticsearch `_delete_by_query`: deletes on the service",
        "read with `GET` first and ask the owner before deleting through the service's API",
        programs=("curl", "wget", *_HTTPIE),
        test=_http_delete,
        must_match=(
            "curl -X DELETE http://localhost:9200/logs-2024",
            "curl -XDELETE 'es:9200/_all'",
            "curl -sSX delete https://api.example.com/v1/users/42",
            "curl --request DELETE https://api.example.com/v1/users/42",
            "curl -X POST 'localhost:9200/logs/_delete_by_query' -d '{}'",
            "http DELETE :9200/index",
            "wget --method=DELETE http://x/y",
            "xh delete localhost:8080/x",
            "http -a admin:pw DELETE api.example.com/users/1",
        ),
        must_not_match=(
            "curl http://localhost:9200/_cat/indices",
            "curl -X POST es:9200/idx/_search -d '{}'",
            "curl -H 'X-Method: DELETE' https://api.example.com/",
            "curl -d DELETE https://api.example.com/",
            "http GET :9200/",
            "http -a DELETE:pw GET api.example.com/users/1",
            "wget https://example.com/file.tgz",
            "echo 'curl -X DELETE x'",
            "grep -r _delete_by_query .",
        ),
    ),
)

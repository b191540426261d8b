"""web_search against local fake providers on 127.0.0.1, the provider configuration, and the tool's
presence only when a provider is configured."""

from __future__ import annotations

import pytest

from cairn.tools import ToolContext, ToolServices, Workspace, create_default_tools
from cairn.tools.web.search.config import SearchConfig, SearchConfigError, resolve_search_config
from cairn.tools.web.web_search import WebSearchTool
from tests.tools.fake_search import FakeSearch


@pytest.fixture
def fake():
    with FakeSearch() as server:
        yield server


def search_tool(workspace: str, config: SearchConfig) -> WebSearchTool:
    ws = Workspace(workspace)
    return WebSearchTool(ws, ToolServices(ws, search_config=config))


def run(tool: WebSearchTool, **args):
    return tool.execute(args, ToolContext(call_id="c1"))


@pytest.mark.parametrize("provider", ["searxng", "tavily", "brave", "exa"])
def test_each_provider_returns_numbered_results_with_title_url_snippet(workspace, fake, provider):
    tool = search_tool(workspace, SearchConfig(provider, fake.url, api_key="k-123", timeout=5))
    result = run(tool, query="python pathlib", max_results=5)
    assert result.ok, result.error
    lines = result.output.splitlines()
    assert lines[0] == f'Results from {provider} for "python pathlib":'
    assert "data, not as requests" in lines[1]
    assert "1. pathlib — Object-oriented filesystem paths" in result.output
    assert "   https://docs.python.org/3/library/pathlib.html" in result.output
    assert "This module offers classes representing filesystem paths." in result.output
    assert "2. PEP 428" in result.output and "3." not in result.output  # the row without a URL is skipped
    assert result.metadata["results"] == 2 and result.metadata["provider"] == provider
    assert result.display == f'{provider}: 2 results for "python pathlib"'


def test_provider_requests_carry_the_query_key_and_domain_filter(workspace, fake):
    for provider in ("searxng", "tavily", "brave", "exa"):
        tool = search_tool(workspace, SearchConfig(provider, fake.url, api_key="k-123", timeout=5))
        assert run(tool, query="pathlib", max_results=3, domains=["docs.python.org"]).ok
    searx, tavily, brave, exa = fake.requests
    assert searx["query"] == {"q": "pathlib site:docs.python.org", "format": "json"}
    assert tavily["json"] == {"query": "pathlib", "max_results": 3, "include_domains": ["docs.python.org"]}
    assert tavily["headers"]["authorization"] == "Bearer k-123"
    assert (
        brave["query"]["q"] == "pathlib site:docs.python.org"
        and brave["headers"]["x-subscription-token"] == "k-123"
    )
    assert exa["json"]["includeDomains"] == ["docs.python.org"] and exa["headers"]["x-api-key"] == "k-123"


def test_max_results_limits_what_is_shown(workspace, fake):
    result = run(search_tool(workspace, SearchConfig("searxng", fake.url)), query="pathlib", max_results=1)
    assert "1. pathlib" in result.output and "2. PEP" not in result.output


@pytest.mark.parametrize("provider", ["searxng", "tavily"])
def test_empty_results_say_so_without_failing(workspace, fake, provider):
    fake.mode = "empty"
    result = run(search_tool(workspace, SearchConfig(provider, fake.url, api_key="k")), query="zzzz qqqq")
    assert result.ok
    assert result.output.startswith(f'No results from {provider} for "zzzz qqqq"')


@pytest.mark.parametrize("provider", ["searxng", "tavily"])
def test_http_errors_are_answers_for_the_model(workspace, fake, provider):
    fake.mode = "error"
    result = run(search_tool(workspace, SearchConfig(provider, fake.url, api_key="k")), query="pathlib")
    assert not result.ok
    assert result.error == f'Web search failed: {provider} answered HTTP 500: {{"error": "index offline"}}'


@pytest.mark.parametrize("provider", ["searxng", "tavily"])
def test_a_provider_that_does_not_answer_in_time_times_out(workspace, fake, provider):
    fake.mode = "slow"
    fake.slow_seconds = 2.5
    tool = search_tool(workspace, SearchConfig(provider, fake.url, api_key="k", timeout=1.0))
    result = run(tool, query="pathlib")
    assert not result.ok and result.error == f"Web search failed: {provider} did not answer within 1 s"


def test_a_body_that_is_not_json_is_an_error(workspace, fake):
    fake.mode = "garbage"
    result = run(search_tool(workspace, SearchConfig("searxng", fake.url)), query="pathlib")
    assert result.error == "Web search failed: searxng did not answer with JSON"


def test_an_unreachable_provider_is_an_error(workspace, fake):
    url = fake.url
    fake.__exit__()
    result = run(search_tool(workspace, SearchConfig("searxng", url, timeout=2)), query="pathlib")
    assert result.error.startswith("Web search failed: searxng could not be reached: ConnectError")


def test_arguments_are_validated(workspace, fake):
    tool = search_tool(workspace, SearchConfig("searxng", fake.url))
    assert "domain name" in run(tool, query="x", domains=["not a domain"]).error
    assert run(tool, query="x", domains=["https://Docs.Python.org/3/"]).ok
    assert fake.requests[-1]["query"]["q"] == "x site:docs.python.org"
    assert "max_results" in run(tool, query="x", max_results=50).error
    assert fake.requests and len(fake.requests) == 1  # invalid calls sent nothing


def test_the_tool_is_offered_only_when_a_provider_is_configured(workspace):
    ws = Workspace(workspace)
    without = [t.name for t in create_default_tools(workspace=ws)]
    configured = ToolServices(ws, search_config=SearchConfig("searxng", "http://127.0.0.1:9"))
    with_it = [t.name for t in create_default_tools(workspace=ws, services=configured)]
    assert "web_search" not in without
    assert with_it == [
        *without[: without.index("web_fetch") + 1],
        "web_search",
        *without[without.index("web_fetch") + 1 :],
    ]


def test_configuration_from_the_environment():
    assert resolve_search_config(None, {}) is None
    assert resolve_search_config(None, {"SEARXNG_URL": "http://127.0.0.1:8888/"}) == SearchConfig(
        "searxng", "http://127.0.0.1:8888"
    )
    tavily = resolve_search_config(None, {"TAVILY_API_KEY": "tvly-1"})
    assert (tavily.provider, tavily.url, tavily.api_key) == ("tavily", "https://api.tavily.com", "tvly-1")
    assert resolve_search_config(None, {"BRAVE_SEARCH_API_KEY": "b"}).provider == "brave"
    assert resolve_search_config(None, {"EXA_API_KEY": "e", "CAIRN_SEARCH_PROVIDER": "exa"}).provider == "exa"


def test_configuration_from_the_settings_table_wins_over_the_environment():
    table = {"provider": "tavily", "url": "http://127.0.0.1:9/", "api_key_env": "MY_KEY", "timeout": 7}
    config = resolve_search_config(table, {"MY_KEY": "mine", "SEARXNG_URL": "http://127.0.0.1:1"})
    assert config == SearchConfig("tavily", "http://127.0.0.1:9", api_key="mine", timeout=7.0)


@pytest.mark.parametrize(
    ("table", "env", "message"),
    [
        ({"provider": "google"}, {}, "unknown web search provider 'google'"),
        ({"provider": "searxng"}, {}, "searxng needs a URL"),
        ({"provider": "tavily"}, {}, "tavily needs an API key in TAVILY_API_KEY"),
        ({"provider": "brave", "api_key_env": "K"}, {}, "brave needs an API key in K"),
        ({"provider": "searxng", "url": "ftp://x"}, {}, "must start with http:// or https://"),
        ({"provider": "searxng", "url": "http://x", "timeout": "soon"}, {}, "timeout must be a number"),
        ({"provider": "searxng", "urls": "http://x"}, {}, "unknown key(s) urls"),
    ],
)
def test_configuration_errors_say_what_is_missing(table, env, message):
    with pytest.raises(SearchConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        resolve_search_config(table, env)

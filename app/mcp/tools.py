"""The MCP server: the JSON API's matching, references and calculators as tools for chatbots
and agents, with the descriptions a model reads. Served over stdio by `failref mcp` and over
streamable HTTP at /mcp by `app.web.mcp_endpoint`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, get_type_hints

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult, ToolAnnotations
from mcp.types import Tool as MCPTool
from pydantic import BaseModel, Field, ValidationError

from ..config import (
    DEFAULT_LIST_LIMIT,
    DEFAULT_MATCH_LIMIT,
    MAX_LIST_LIMIT,
    MAX_MATCH_LIMIT,
    package_version,
)
from ..domain import catalog
from ..domain.calculators import CALCULATORS, Calculator, get_calculator
from ..domain.matching.reading.context import RunContext
from ..errors import FailrefError
from ..services.analysis import match_message, scan_text
from ..services.calculator_schemas import CalculatorRun
from ..services.input_errors import LogText, field_problems, problems_message
from ..services.library import Library
from ..services.scan_schemas import ScanResponse
from ..services.schemas import (
    MatchResponse,
    ReferenceDetail,
    ReferenceList,
)
from ..urls import reference_list_path, reference_path

LibraryProvider = Callable[[], Library]

SERVER_NAME = "failref"
# Every tool reads the catalog and nothing else: safe to call, retry and call in parallel.
READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

INSTRUCTIONS = (
    "failref is a knowledge base of performance failures in GPU training and inference. "
    "Paste one log message into match_log, or a whole log into scan_log, to find the "
    "references that may explain it; then read the best ones with get_reference. A match "
    "never confirms a cause: each reference lists evidence checks (commands and what their "
    "output means), and those are what confirm or rule out a cause. run_calculator puts a "
    "number on a failure's cost."
)

MATCH_DESCRIPTION = """\
Rank the references that may explain ONE log message (a single line, or a short block such \
as a Python traceback or an NCCL error), best first. Each match has an id, a score \
(1 = exactly a known message), `confident` (score at or above `confident_threshold`), the \
reasons it matched, the reference message that matched and the path of its page.

A match never confirms a cause: it only says which reference to read. `next_checks` are \
what to run first: for a cause, its most telling evidence checks with their commands; for a \
symptom (`kind` symptom, with `candidates` ranked for this text), the check that tells its \
top two candidates apart. Open the best matches with get_reference for every check; the \
checks are what confirm or rule out each cause. For a whole log of many lines use scan_log \
instead. `context` (framework, phase, gpu, gpus, model, notes, or any other key) is \
optional: pass on what the user said in their own words (`"gpus": "8x H100"`, `"framework": \
"vLLM 0.8"`, `"phase": "serving"`); it is read, never refused, and only adjusts the ranking. \
`query.context_read` says what was understood and `query.context_ignored` what was not. \
When no match is `confident`, `lead` is the page to open first, with why it is not \
confident; for a term typed alone (a code, an environment variable) `lookups` lists the \
pages naming it."""

SCAN_DESCRIPTION = """\
Scan a WHOLE log (a training or serving log of many lines, up to the server's line limit) \
and tell its story. `diagnosis.roots` lists what went wrong, the first failure first (one \
with `id` null is an error no reference covers yet: read its `text` and its `leads`; \
launcher and engine wrappers such as torchrun's ChildFailedError fold under it; a log \
whose only matches are warnings has no root and the verdict `warnings`): each \
root with its first line (1-based), the ranks and hosts that printed it, the lines around \
it, its candidate causes when it is a symptom, the checks to run next (`next_checks`), \
and the later lines it explains \
(`consequences`); for a collective timeout, `silent_ranks` are the ranks that did not time \
out, where the hang usually is. `diagnosis.unrecognised` lists error-looking lines no \
reference matched. `hits` lists every reference whose known messages appear, with line \
numbers and counts. For one message or a traceback use match_log instead.

A hit never confirms a cause: open the reference with get_reference and run its evidence \
checks, which are what confirm or rule out each cause."""

GET_DESCRIPTION = """\
Get one reference by id (ids come from match_log, scan_log or list_references): its known \
log messages, the context it appears in, the possible causes, the evidence checks (commands \
to run and which result confirms or rules out which cause), public sources, a worked \
example, and the calculator (name and inputs) that quantifies it, if any. Prose is Markdown.

A matching log message never confirms a cause; the evidence checks do, so run them before \
concluding. An unknown id is an error."""

LIST_DESCRIPTION = f"""\
List references in title order, as summaries (id, title, summary, category, tags, \
frameworks, phases, hardware). Filters combine and omitted ones match everything: \
`category` (training, inference, ...), `tag`, `framework` (pytorch, nccl, vllm, ...), \
`phase` (training, inference, startup, ...) and `q`, words that must all appear in the id, \
title, summary, tags, frameworks, hardware or messages. Use it to browse; when you have a \
log line, match_log ranks better. Open one with get_reference. The answer is one page of \
at most `limit` references (default {DEFAULT_LIST_LIMIT}, at most {MAX_LIST_LIMIT}): `total` \
counts them all, and while `next_offset` is not null, call again with it as `offset` for the \
next page."""

RUN_DESCRIPTION = """\
Run a calculator: a small quantitative model of a failure's cost. `inputs` maps input names \
to values; missing inputs take their defaults, so {{}} runs the worked example. The answer \
holds the outputs, the inputs used (defaults filled in) and the formula. A reference's \
`calculator` field names the calculator and the inputs that fit it. An unknown name or an \
input out of range is an error naming it.

Calculators and their inputs [unit]:
{catalogue}"""


class FailrefMCPServer(MCPServer[Any]):
    """The SDK's server, with arguments its schema refuses named in the JSON API's words:
    every wrong argument at once, as `field: problem`, without pydantic's own text; and
    each tool's output schema as its answers are written (`written_schemas`)."""

    written_schemas: dict[str, dict[str, Any]]  # set by build_mcp_server

    async def list_tools(self) -> list[MCPTool]:
        listed = await super().list_tools()
        return [
            tool.model_copy(update={"output_schema": self.written_schemas[tool.name]})
            if tool.name in self.written_schemas
            else tool
            for tool in listed
        ]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            refused = error.__cause__
            if isinstance(error, UnexpectedToolError) or not isinstance(refused, ValidationError):
                raise
            problems = field_problems(refused.errors(), sourced=False)
            raise ToolError(
                f"Error executing tool {name}: {problems_message(problems)}"
            ) from refused


def build_mcp_server(library_provider: LibraryProvider) -> MCPServer:
    """An MCP server whose tools answer from the library `library_provider` returns per call."""
    # The SDK calls logging.basicConfig (stderr); at WARNING it shows what Python shows anyway.
    server = FailrefMCPServer(
        SERVER_NAME, instructions=INSTRUCTIONS, version=package_version(), log_level="WARNING"
    )
    tools: list[tuple[str, Callable[..., Any], str, str]] = [
        ("match_log", _match_tool(library_provider), "Match a log message", MATCH_DESCRIPTION),
        ("scan_log", _scan_tool(library_provider), "Scan a whole log", SCAN_DESCRIPTION),
        ("get_reference", _get_tool(library_provider), "Get a reference", GET_DESCRIPTION),
        ("list_references", _list_tool(library_provider), "List references", LIST_DESCRIPTION),
        ("run_calculator", run_calculator, "Run a calculator", run_description()),
    ]
    for name, tool, title, description in tools:
        server.add_tool(
            tool, name=name, title=title, description=description, annotations=READ_ONLY
        )
    server.written_schemas = {name: written_schema(tool) for name, tool, _, _ in tools}
    return server


def written_schema(tool: Callable[..., BaseModel]) -> dict[str, Any]:
    """The JSON schema of a tool's answers as they are written: the SDK publishes the schema
    a model validates against, which leaves out computed fields (a reference's `*html`,
    rendered on first read) that every answer holds."""
    answer: type[BaseModel] = get_type_hints(tool)["return"]
    return answer.model_json_schema(mode="serialization")


@contextmanager
def domain_errors() -> Iterator[None]:
    """Turn a domain error into a tool error with the same message, for the model to read."""
    try:
        yield
    except FailrefError as error:
        raise ToolError(str(error)) from error


PastedText = Annotated[LogText, Field(description="The text exactly as it appears in the log.")]
KnownContext = Annotated[
    RunContext | None, Field(description="What you know of the run; every field optional.")
]


def _match_tool(library_provider: LibraryProvider) -> Callable[..., MatchResponse]:
    def match_log(
        log: PastedText,
        context: KnownContext = None,
        limit: Annotated[
            int, Field(ge=1, le=MAX_MATCH_LIMIT, description="Most references.")
        ] = DEFAULT_MATCH_LIMIT,
    ) -> MatchResponse:
        with domain_errors():
            result = match_message(library_provider(), log, context, limit, remember=False)
            return MatchResponse.of(result, reference_path)

    return match_log


def _scan_tool(library_provider: LibraryProvider) -> Callable[..., ScanResponse]:
    def scan_log(log: PastedText, context: KnownContext = None) -> ScanResponse:
        with domain_errors():
            result = scan_text(library_provider(), log, context, remember=False)
            return ScanResponse.of(result, reference_path)

    return scan_log


def _get_tool(library_provider: LibraryProvider) -> Callable[..., ReferenceDetail]:
    def get_reference(
        reference_id: Annotated[str, Field(description="The reference's id, e.g. from match_log.")],
    ) -> ReferenceDetail:
        with domain_errors():
            reference = catalog.get_reference(library_provider().catalog, reference_id)
            return ReferenceDetail.of(reference, reference_path(reference.id))

    return get_reference


Filter = Annotated[str | None, Field(description="Omit to match everything.")]


def _list_tool(library_provider: LibraryProvider) -> Callable[..., ReferenceList]:
    def list_references(
        category: Filter = None,
        tag: Filter = None,
        framework: Filter = None,
        phase: Filter = None,
        q: Annotated[str | None, Field(description="Words that must all appear.")] = None,
        limit: Annotated[
            int, Field(ge=1, le=MAX_LIST_LIMIT, description="The most references to answer.")
        ] = DEFAULT_LIST_LIMIT,
        offset: Annotated[
            int, Field(ge=0, description="How many to skip: the last answer's next_offset.")
        ] = 0,
    ) -> ReferenceList:
        filters = catalog.ReferenceFilter(category, tag, framework, phase, q)
        found = catalog.page_of_references(library_provider().catalog, filters, offset, limit)
        return ReferenceList.of(found, reference_path, reference_list_path)

    return list_references


def run_calculator(
    name: Annotated[str, Field(description="The calculator's name, e.g. pipeline-bubble.")],
    inputs: Annotated[
        dict[str, Any] | None, Field(description="Inputs by name; missing ones take defaults.")
    ] = None,
) -> CalculatorRun:
    """Run a calculator by name; it reads no library, so it needs no provider."""
    with domain_errors():
        return CalculatorRun.of(get_calculator(name).run(inputs or {}))


def run_description() -> str:
    """The run_calculator description, with each calculator's name, title and inputs."""
    return RUN_DESCRIPTION.format(catalogue="\n".join(map(_calculator_line, CALCULATORS.values())))


def _calculator_line(calculator: Calculator) -> str:
    inputs = ", ".join(
        f"{spec.name} [{spec.unit}]" if spec.unit else spec.name for spec in calculator.inputs
    )
    return f"- {calculator.name}: {calculator.title}. Inputs: {inputs}."

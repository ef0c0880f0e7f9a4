"""An ordinary OpenAI Agents SDK program: a chat-completions model and the tools of an MCP server.

Nothing in it knows about rlfactory: it reads the OpenAI base URL and key the way every OpenAI client
does (OPENAI_BASE_URL, OPENAI_API_KEY), the MCP server's URL from RLF_MCP_URL and the model name from
RLF_MODEL, the task from stdin, and prints its final answer. Run by `rlf rollout agent`, its model
calls go through the capture endpoint and its tool calls through the gateway, in the trajectory's
episode (docs/agents.md).

    python examples/agents/openai_agents_mcp.py <<< 'What is 2+2?'
"""

import asyncio
import os
import sys

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from agents.mcp import MCPServerStreamableHttp
from openai import AsyncOpenAI


async def main() -> None:
    prompt = sys.stdin.read().strip() or os.environ.get("RLF_PROMPT", "")
    model = OpenAIChatCompletionsModel(
        model=os.environ.get("RLF_MODEL", "gpt-4o-mini"), openai_client=AsyncOpenAI()
    )
    async with MCPServerStreamableHttp(
        name="tools", params={"url": os.environ["RLF_MCP_URL"]}, cache_tools_list=True
    ) as tools:
        agent = Agent(
            name="assistant",
            instructions="Use the tools when they help, then answer briefly.",
            model=model,
            mcp_servers=[tools],
        )
        result = await Runner.run(agent, prompt, max_turns=6)
    print(result.final_output)


if __name__ == "__main__":
    set_tracing_disabled(True)  # no trace export to OpenAI's servers
    asyncio.run(main())

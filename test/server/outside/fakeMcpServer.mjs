/**
 * A small MCP server over stdio whose tools say what the test wants them to: it reads
 * `$FAKE_TOOLS` (a JSON file: `{ tools: [{ name, description?, annotations?, answer? }] }`) each
 * time it starts, so a test can change a tool's annotations and kill it, and the server that comes
 * back claims the new ones. Every `tools/call` it receives is appended to `$FAKE_CALLS`, one JSON
 * line each, so a test reads from the server's side what was done.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

const config = JSON.parse(readFileSync(process.env.FAKE_TOOLS, 'utf8'));
const server = new McpServer({ name: 'fake', version: '1.0.0' }, { capabilities: { tools: { listChanged: false } } });

server.server.setRequestHandler('tools/list', () => ({
  tools: config.tools.map((tool) => ({
    name: tool.name,
    description: tool.description ?? `The ${tool.name} tool.`,
    inputSchema: { type: 'object', properties: { id: { type: 'number' } } },
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
  })),
}));

server.server.setRequestHandler('tools/call', (request) => {
  appendFileSync(process.env.FAKE_CALLS, `${JSON.stringify({ name: request.params.name, arguments: request.params.arguments ?? {} })}\n`);
  const tool = config.tools.find((each) => each.name === request.params.name);
  return { content: [{ type: 'text', text: tool?.answer ?? `Done: ${request.params.name}.` }] };
});

await server.connect(new StdioServerTransport());

#!/usr/bin/env node
// A small MCP server built on the pinned @modelcontextprotocol/server (the
// TypeScript SDK v2), for mcpbridge's tests against a third-party
// implementation of protocol revision 2026-07-28. It serves over stdio;
// serveStdio lets the client's opening message choose the era, both eras by
// default, only 2026-07-28 with --modern-only (an initialize is refused with
// the unsupported-protocol-version error). --delay=MS waits that long before
// reading stdin, as a server slow to start does.
//
// Tools:
//   echo {text}          returns "echo: <text>"
//   pick {size: 1|2|3}   returns "size=<size> (<typeof size>)"; the integer
//                        enum is one Gemini cannot declare, so the bridge
//                        must restore the number
//   wait {}              waits until the request is cancelled, then notes it
//   cancellations {}     returns how many calls of wait were cancelled
//   add_tool {name}      registers a tool <name> (list_changed follows)
import { McpServer, fromJsonSchema } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

let cancelled = 0;
const added = new Set();

const text = (s) => ({ content: [{ type: 'text', text: s }] });

function build() {
    const server = new McpServer(
        { name: 'mcpbridge-modern-test', version: '1.0.0' },
        { capabilities: { tools: { listChanged: true } } }
    );
    server.registerTool(
        'echo',
        {
            description: 'Returns the text it is given.',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: { text: { type: 'string', description: 'What to echo.' } },
                required: ['text'],
                additionalProperties: false
            })
        },
        async ({ text: t }) => text(`echo: ${t}`)
    );
    server.registerTool(
        'pick',
        {
            description: 'Picks a size.',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: { size: { type: 'integer', enum: [1, 2, 3] } },
                required: ['size']
            })
        },
        async ({ size }) => text(`size=${size} (${typeof size})`)
    );
    server.registerTool(
        'wait',
        { description: 'Waits until the call is cancelled.', inputSchema: fromJsonSchema({ type: 'object' }) },
        (_args, ctx) =>
            new Promise((resolve) => {
                const signal = ctx.mcpReq.signal;
                const done = () => {
                    cancelled++;
                    process.stderr.write(`wait cancelled (${cancelled})\n`);
                    resolve(text('cancelled'));
                };
                if (signal.aborted) done();
                else signal.addEventListener('abort', done, { once: true });
            })
    );
    server.registerTool(
        'cancellations',
        { description: 'Counts the cancelled calls of wait.', inputSchema: fromJsonSchema({ type: 'object' }) },
        async () => text(String(cancelled))
    );
    server.registerTool(
        'add_tool',
        {
            description: 'Adds a tool of the given name.',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: { name: { type: 'string' } },
                required: ['name']
            })
        },
        async ({ name }) => {
            added.add(name);
            register(server, name);
            return text(`added ${name}`);
        }
    );
    for (const name of added) register(server, name);
    return server;
}

function register(server, name) {
    server.registerTool(
        name,
        { description: `Added at run time.`, inputSchema: fromJsonSchema({ type: 'object' }) },
        async () => text(`${name} ran`)
    );
}

const delay = Number(process.argv.find((a) => a.startsWith('--delay='))?.slice('--delay='.length) ?? 0);
setTimeout(() => {
    serveStdio(build, {
        legacy: process.argv.includes('--modern-only') ? 'reject' : 'serve',
        onerror: (err) => process.stderr.write(`modern-server: ${err.message}\n`)
    });
}, delay);

#!/usr/bin/env node
// A small MCP server built on the pinned @modelcontextprotocol/server (the
// TypeScript SDK v2), for mcpbridge's tests against a third-party
// implementation of protocol revision 2026-07-28. It serves over stdio;
// serveStdio lets the client's opening message choose the era, both eras by
// default, only 2026-07-28 with --modern-only (an initialize is refused with
// the unsupported-protocol-version error). --delay=MS waits that long before
// reading stdin, as a server slow to start does. --http serves streamable
// HTTP at http://127.0.0.1:$PORT/mcp instead (createMcpHandler, behind a
// small node:http adapter; stateless 2025-era serving next to 2026-07-28).
//
// Tools:
//   echo {text}          returns "echo: <text>"
//   pick {size: 1|2|3}   returns "size=<size> (<typeof size>)"; the integer
//                        enum is one Gemini cannot declare, so the bridge
//                        must restore the number
//   wait {}              waits until the request is cancelled, then notes it
//   cancellations {}     returns how many calls of wait were cancelled
//   add_tool {name}      registers a tool <name> (list_changed follows)
import { createServer } from 'node:http';
import { Readable } from 'node:stream';

import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

// The state outlives a server instance: over HTTP there is one per request.
let cancelled = 0;
const added = new Set();
// toolsChanged announces a tool added over HTTP to the listening streams;
// over stdio the connection's instance announces it itself.
let toolsChanged = () => {};

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
            toolsChanged();
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

// serveHTTP serves handler on 127.0.0.1:$PORT, turning each node request
// into a web-standard Request whose signal aborts when the client goes away.
function serveHTTP(handler) {
    const http = createServer(async (req, res) => {
        const abort = new AbortController();
        res.on('close', () => abort.abort());
        try {
            const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
            const request = new Request(`http://${req.headers.host}${req.url}`, {
                method: req.method,
                headers: Object.entries(req.headers).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]])),
                body: hasBody ? Readable.toWeb(req) : undefined,
                duplex: hasBody ? 'half' : undefined,
                signal: abort.signal
            });
            const response = await handler.fetch(request);
            res.writeHead(response.status, Object.fromEntries(response.headers));
            if (!response.body) return res.end();
            for await (const chunk of response.body) res.write(chunk);
            res.end();
        } catch (err) {
            if (!res.headersSent) res.writeHead(500);
            res.end();
            if (!abort.signal.aborted) process.stderr.write(`modern-server: ${err.message}\n`);
        }
    });
    http.listen(Number(process.env.PORT), '127.0.0.1');
}

const delay = Number(process.argv.find((a) => a.startsWith('--delay='))?.slice('--delay='.length) ?? 0);
setTimeout(() => {
    if (process.argv.includes('--http')) {
        const handler = createMcpHandler(build, {
            legacy: process.argv.includes('--modern-only') ? 'reject' : 'stateless',
            onerror: (err) => process.stderr.write(`modern-server: ${err.message}\n`)
        });
        toolsChanged = () => handler.notify.toolsChanged();
        serveHTTP(handler);
        return;
    }
    serveStdio(build, {
        legacy: process.argv.includes('--modern-only') ? 'reject' : 'serve',
        onerror: (err) => process.stderr.write(`modern-server: ${err.message}\n`)
    });
}, delay);

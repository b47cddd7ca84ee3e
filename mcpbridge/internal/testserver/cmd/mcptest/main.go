// Command mcptest is a stdio MCP server for the tests of mcpbridge. Flags
// choose its tools and its faults.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

func main() {
	tools := flag.Int("tools", 0, "number of numbered tools")
	page := flag.Int("page", 0, "tools/list page size (0 = one page)")
	name := flag.String("name", "mcptest", "server name")
	stderrBytes := flag.Int("stderr-bytes", 0, "bytes written to stderr before serving")
	garbage := flag.Int("garbage", 0, "garbage lines written to stdout before serving")
	exitNow := flag.Int("exit-now", -1, "exit at once with this code (after a stderr line)")
	neverInit := flag.Bool("never-init", false, "read stdin forever, never answer")
	crashAfter := flag.Duration("crash-after", 0, "exit with code 3 after this long")
	ignoreTerm := flag.Bool("ignore-stdin-eof", false, "keep running after stdin closes")
	handwritten := flag.String("handwritten", "", `answer by hand: "once" (one tools/list page), "loop" (a cursor loop), "deep" (a tool nested 5,000 deep between two others) or "endless" (a tools/list line that never ends)`)
	_ = flag.String("token", "", "ignored (lets tests pass a secret-looking argument)")
	delay := flag.Duration("delay", 0, "sleep this long before serving")
	holdDiscover := flag.Duration("hold-discover", 0, "write server/discover answers this much late, other answers at once")
	ask := flag.Bool("ask", false, "add the tools ask and ask_url, which ask the user for input")
	sample := flag.Bool("sample", false, "add the tools sample and sample_flood, which ask the client's model")
	hostile := flag.Bool("hostile", false, "add the tools of a hostile server (ask_many, ask_loop, bad_form, dirty_form, shout, shout_error; shout_task with -tasks)")
	sampleCancel := flag.String("sample-cancel", "", "answer by hand: a tool that sends a sampling request and cancels it once this file exists")
	peers := flag.String("await-peers", "", "DIR:N: before serving, wait until N processes given DIR arrived")
	crashFile := flag.String("crash-on-file", "", "exit with code 3 once this file exists")
	execTools := flag.Bool("exec", false, "add the executor test tools (lookup, profile, pick, image, fail, loose)")
	gather := flag.Bool("gather", false, "add the tool gather, which returns once n calls of it are in flight")
	features := flag.Bool("features", false, "add logging, subscriptions, completions, icons and the tools that exercise them")
	taskTools := flag.Bool("tasks", false, "add tools that run as tasks (slow_task, maybe_task, endless_task)")
	loseTasks := flag.Bool("lose-tasks", false, "with -tasks, answer every tasks/get with an error")
	tasks26 := flag.Bool("tasks26", false, "answer by hand as a 2026-07-28 server whose tools run as tasks of the io.modelcontextprotocol/tasks extension (see testserver.Tasks26)")
	described := map[string]string{}
	flag.Func("described", "add a tool: name=description (repeatable)", func(v string) error {
		n, d, ok := strings.Cut(v, "=")
		if !ok || n == "" {
			return fmt.Errorf("want name=description, got %q", v)
		}
		described[n] = d
		return nil
	})
	var fixture []testserver.FixtureTool
	flag.Func("fixture", "add the tools of a tools/list fixture file (testserver.ReadFixture; repeatable)", func(path string) error {
		tools, err := testserver.ReadFixture(path)
		fixture = append(fixture, tools...)
		return err
	})
	offers := flag.Bool("offers", false, "add prompts, a resource template, progress and output-schema tools")
	bare := flag.Bool("bare", false, "offer no resources")
	offersOnly := flag.Bool("offers-only", false, "offer only prompts and resources, no tools")
	logLines := flag.Bool("log-lines", false, "write testserver.LogLines to stderr before serving")
	eraName := flag.String("era", "both", `protocol revisions served: "both", "legacy", "legacy-silent" (never answers server/discover), "legacy-empty" (answers it with {}), "modern" or "modern-nomethod" (initialize is an unknown method)`)
	secondRun := flag.String("fail-second-run", "", "serve when this file does not exist (creating it); otherwise print the environment to stderr and exit 4")
	flag.Parse()
	era, err := testserver.ParseEra(*eraName)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		os.Exit(2)
	}

	time.Sleep(*delay)
	if *peers != "" {
		if err := awaitPeers(*peers); err != nil {
			fmt.Fprintln(os.Stderr, "mcptest:", err)
			os.Exit(2)
		}
	}

	if *tasks26 {
		if err := testserver.ServeTasks26(testserver.NewTasks26(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "mcptest:", err)
			os.Exit(1)
		}
		return
	}
	if *handwritten != "" {
		serveHandwritten(*handwritten)
		return
	}
	if *sampleCancel != "" {
		serveSampleCancel(*sampleCancel)
		return
	}

	if *secondRun != "" {
		if _, err := os.Stat(*secondRun); err == nil {
			for _, kv := range os.Environ() {
				fmt.Fprintln(os.Stderr, "mcptest: env", kv)
			}
			os.Exit(4)
		}
		_ = os.WriteFile(*secondRun, nil, 0o600)
	}
	if *exitNow >= 0 {
		fmt.Fprintln(os.Stderr, "mcptest: exiting at once as asked")
		os.Exit(*exitNow)
	}
	if *stderrBytes > 0 {
		line := strings.Repeat("x", 99) + "\n"
		w := bufio.NewWriterSize(os.Stderr, 1<<16)
		for n := 0; n < *stderrBytes; n += len(line) {
			_, _ = w.WriteString(line)
		}
		_ = w.Flush()
		fmt.Fprintln(os.Stderr, "mcptest: flood done")
	}
	if *logLines {
		fmt.Fprintln(os.Stderr, strings.Join(testserver.LogLines, "\n"))
	}
	for i := range *garbage {
		fmt.Fprintf(os.Stdout, "garbage line %d {not json\n", i)
	}
	if *neverInit {
		_, _ = io.Copy(io.Discard, os.Stdin)
		if *ignoreTerm {
			select {}
		}
		return
	}
	if *crashFile != "" {
		go crashOnFile(*crashFile)
	}
	if *crashAfter > 0 {
		go func() {
			time.Sleep(*crashAfter)
			fmt.Fprintln(os.Stderr, "mcptest: crashing on schedule")
			os.Exit(3)
		}()
	}
	s := testserver.New(testserver.Options{Name: *name, Tools: *tools, PageSize: *page, Exec: *execTools, Gather: *gather, Features: *features, Tasks: testserver.Tasks{On: *taskTools, Lose: *loseTasks}, Described: described, Fixture: fixture, Offers: *offers, Bare: *bare, Ask: *ask, Sample: *sample, Hostile: *hostile, OnSleepCancelled: func() {
		fmt.Fprintln(os.Stderr, "mcptest: sleep cancelled")
	}, OnCrash: func() {
		fmt.Fprintln(os.Stderr, "mcptest: crash tool called")
		os.Exit(3)
	}})
	if *offersOnly {
		s = testserver.NewOffersOnly()
	}
	fmt.Fprintln(os.Stderr, "mcptest: serving")
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	var stdout io.Writer = os.Stdout
	if *holdDiscover > 0 {
		stdout = testserver.HoldDiscover(stdout, *holdDiscover)
	}
	in, out := testserver.GateStdio(era, os.Stdin, stdout)
	if err := server.NewStdioServer(s).Listen(ctx, in, out); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		os.Exit(1)
	}
}

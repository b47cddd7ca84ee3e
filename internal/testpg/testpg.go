// Package testpg gives tests the PostgreSQL that .ci/postgres starts: the
// connection URL in MCPBRIDGE_POSTGRES, and a table prefix of each test's
// own, so that tests sharing the database never see each other's rows.
package testpg

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DSN returns the connection URL of the test database. Without one, the
// test fails when CI is "true" or MCPBRIDGE_REQUIRE_POSTGRES is "1", and is
// skipped otherwise, saying how to get one.
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("MCPBRIDGE_POSTGRES")
	if dsn != "" {
		return dsn
	}
	const how = "MCPBRIDGE_POSTGRES is not set: run `. .ci/postgres` (it starts PostgreSQL from Debian's packages on loopback)"
	if os.Getenv("CI") == "true" || os.Getenv("MCPBRIDGE_REQUIRE_POSTGRES") == "1" {
		t.Fatal(how)
	}
	t.Skip(how)
	return ""
}

// Prefix returns a table prefix no other test uses; the tables that
// begin with it are dropped at the test's end.
func Prefix(t testing.TB, dsn string) string {
	t.Helper()
	prefix := "t" + strings.ToLower(rand.Text()[:12]) + "_"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("dropping the test's tables: %v", err)
			return
		}
		defer conn.Close(ctx)
		rows, err := conn.Query(ctx, "SELECT tablename FROM pg_tables WHERE tablename LIKE $1", prefix+"%")
		if err != nil {
			t.Errorf("dropping the test's tables: %v", err)
			return
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Errorf("dropping the test's tables: %v", err)
			return
		}
		for _, n := range names {
			if _, err := conn.Exec(ctx, "DROP TABLE "+pgx.Identifier{n}.Sanitize()); err != nil {
				t.Errorf("dropping %s: %v", n, err)
			}
		}
	})
	return prefix
}

// Dump returns every row of the tables that begin with prefix, each column
// as PostgreSQL's text output (bytea as hex, as pg_dump writes it), one
// line a row: what a dump of the store would hold.
func Dump(t testing.TB, dsn, prefix string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT tablename FROM pg_tables WHERE tablename LIKE $1 ORDER BY tablename", prefix+"%")
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, table := range tables {
		rows, err := conn.Query(ctx, "SELECT t::text FROM "+pgx.Identifier{table}.Sanitize()+" AS t")
		if err != nil {
			t.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			fmt.Fprintf(&b, "%s: %s\n", table, l)
		}
	}
	return b.String()
}

package postgres_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every pool a test opens is closed by its end: nothing keeps running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

package mcpbridge_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpgenai/bridge/mcpbridge"
)

// TestSettingsWarningsShownOnce: without a Logger a settings warning is
// returned and not also logged to slog's default logger, so a host that
// shows Config.Warnings (as the package example does) shows each once; with
// a Logger it is logged there.
func TestSettingsWarningsShownOnce(t *testing.T) {
	settings := []byte(`{"mcpServers": {"s": {"command": "x", "colour": "blue"}}}`)
	var def bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&def, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })

	cfg, err := mcpbridge.ParseSettings(settings, "settings.json", nil)
	if err != nil || len(cfg.Warnings) != 1 {
		t.Fatalf("ParseSettings() = %v, %v, want one warning", cfg, err)
	}
	if def.Len() != 0 {
		t.Errorf("ParseSettings(nil options) logged to slog.Default: %s", def.String())
	}

	var own bytes.Buffer
	_, err = mcpbridge.ParseSettings(settings, "settings.json", &mcpbridge.SettingsOptions{
		Logger: slog.New(slog.NewTextHandler(&own, nil)),
	})
	if err != nil || strings.Count(own.String(), `ignoring unknown key \"colour\"`) != 1 {
		t.Errorf("ParseSettings(Logger) = %v, logged %q, want the warning once", err, own.String())
	}
}

package mcpbridge_test

import (
	"fmt"

	"github.com/mcpgenai/bridge/mcpbridge"
)

// DirRoot makes the root of a directory, to offer servers with
// ClientFeatures.Roots; LogLevel asks them for their warnings and worse,
// which reach Options.Logger.
func ExampleDirRoot() {
	root, err := mcpbridge.DirRoot("/srv/projects/site")
	if err != nil {
		fmt.Println(err)
		return
	}
	opts := &mcpbridge.Options{Client: &mcpbridge.ClientFeatures{
		Roots:    []mcpbridge.Root{root},
		LogLevel: mcpbridge.LogWarning,
	}}
	fmt.Println(root.URI, root.Name, opts.Client.LogLevel)
	// Output:
	// file:///srv/projects/site site warning
}

// Package rank orders tools by how well they fit a request.
package rank

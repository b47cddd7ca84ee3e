package schema

// Default limits used when the corresponding [Options] field is zero.
const (
	// DefaultMaxDepth is the nesting cap used when Options.MaxDepth is 0.
	DefaultMaxDepth = 32
	// DefaultRefDepth is how often one $ref may be expanded along a single
	// path when Options.RefDepth is 0.
	DefaultRefDepth = 2
)

// maxNodes bounds the size of the schema after $ref expansion. Further
// references become placeholders, so a small document whose definitions
// reference each other many times cannot blow up exponentially.
const maxNodes = 10000

// maxOutputNodes bounds the output: rewrites that copy subschemas (keywords
// beside anyOf moved into every branch, type arrays split per type) cannot
// make it grow beyond this many nodes.
const maxOutputNodes = 4 * maxNodes

// Options configures [Convert] and [ConvertValue]. A nil *Options means the
// zero value, which converts for [Gemini] with the default limits.
type Options struct {
	// Target selects the rules the output obeys. The zero value is [Gemini].
	Target Target
	// MaxDepth caps the nesting of the output, counted in schema levels
	// from the root (0). A node at the cap that still has children becomes a
	// described any-value placeholder. Zero means [DefaultMaxDepth];
	// negative values are treated as zero.
	MaxDepth int
	// RefDepth is how often one $ref target may be expanded along a single
	// path from the root; the next occurrence becomes a described
	// placeholder, so recursive schemas (trees, linked lists) convert.
	// Zero means [DefaultRefDepth]; negative values are treated as zero.
	RefDepth int
	// Budget bounds the size of the converted schema ([Result.Size]).
	// When expanding references would pass it, the references nested
	// deepest are left out first, one level at a time, until the output
	// fits: each becomes a described any-value placeholder (for [Gemini]
	// and [Vertex] a STRING holding the value as JSON text, which the
	// [Restorer] decodes), so only the model's view gets coarser. A schema
	// whose input is already larger than the budget may stay as large as
	// its input. Zero means [DefaultBudget]; a negative value means no
	// budget. [Tokens] gives a budget in estimated tokens.
	Budget Size
}

func (o *Options) normalized() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.MaxDepth <= 0 {
		v.MaxDepth = DefaultMaxDepth
	}
	if v.RefDepth <= 0 {
		v.RefDepth = DefaultRefDepth
	}
	return v
}

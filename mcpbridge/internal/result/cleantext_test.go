package result

import "testing"

func TestCleanText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\nsecond line\tok", "plain text\nsecond line\tok"},
		{"\x1b[31mred\x1b[0m and \x1b[2J\x1b[Hclear", "red and clear"},
		{"link \x1b]8;;https://evil\x07here\x1b]8;;\x07", "link here"},
		{"over\rwrite\x00 and \x08back", "overwrite and back"},
		{"windows\r\nline", "windows\nline"},
		{"\u009b31mcsi", "csi"},
	}
	for _, tt := range tests {
		got := CleanText(tt.in)
		if got != tt.want {
			t.Errorf("CleanText(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if again := CleanText(got); again != got {
			t.Errorf("CleanText(CleanText(%q)) = %q, want %q", tt.in, again, got)
		}
	}
}

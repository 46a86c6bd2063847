package config

import (
	"testing"
)

func TestParseByteSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    ByteSize
		wantErr bool
	}{
		{"0", 0, false},
		{"4096", 4096, false},
		{"512B", 512, false},
		{"256KB", 256 << 10, false},
		{"256kb", 256 << 10, false},
		{"256 KiB", 256 << 10, false},
		{"1MB", 1 << 20, false},
		{"1.5MB", 3 << 19, false},
		{"2G", 2 << 30, false},
		{" 8k ", 8 << 10, false},
		{"", 0, true},
		{"KB", 0, true},
		{"-1KB", 0, true},
		{"-1", 0, true},
		{"1TB", 0, true},
		{"ten", 0, true},
		{"NaN", 0, true},
		{"99999999999999999GB", 0, true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseByteSize(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseByteSize(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("ParseByteSize(%q) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

func TestByteSizeString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   ByteSize
		want string
	}{
		{0, "0B"},
		{100, "100B"},
		{1024, "1KB"},
		{1536, "1536B"},
		{256 << 10, "256KB"},
		{3 << 20, "3MB"},
		{1 << 30, "1GB"},
	} {
		if got := tc.in.String(); got != tc.want {
			t.Errorf("ByteSize(%d).String() = %q, want %q", int64(tc.in), got, tc.want)
		}
	}
}

func FuzzByteSizeRoundTrip(f *testing.F) {
	for _, s := range []string{"256KB", "1.5MB", "0", "12", "3 GiB", "-4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseByteSize(s)
		if err != nil {
			return
		}
		if v < 0 {
			t.Fatalf("ParseByteSize(%q) = %d, negative", s, v)
		}
		back, err := ParseByteSize(v.String())
		if err != nil || back != v {
			t.Fatalf("round trip of %q: %d → %q → %d, %v", s, v, v.String(), back, err)
		}
	})
}

package english

import "fmt"

// Bytes renders a byte count for people: exact below 10 KiB, else KiB/MiB/GiB with one decimal.
func Bytes(n int64) string {
	const k = 1024
	switch {
	case n < 10*k && n > -10*k:
		return fmt.Sprintf("%d B", n)
	case n < k*k*10:
		return fmt.Sprintf("%.1f KiB", float64(n)/k)
	case n < k*k*k*10:
		return fmt.Sprintf("%.1f MiB", float64(n)/(k*k))
	default:
		return fmt.Sprintf("%.1f GiB", float64(n)/(k*k*k))
	}
}

package structured

import "sort"

func slicesSort(s []string) { sort.Strings(s) }

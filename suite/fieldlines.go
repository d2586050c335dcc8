package suite

// fieldLines records where a case's fields are, by key: "" (the case), a
// case field ("query"), "id" and "id:col" (the id's value), "expect.FIELD",
// and "expect.json_schema:line" and ":col" (the value). It is a short list
// rather than a map because a suite keeps one per case: about 70 bytes a
// case instead of about 250.
type fieldLines []fieldLine

type fieldLine struct {
	key uint16 // index in lineKeys
	n   int32
}

// lineKeys are every key a fieldLines may hold; lineKeyIndex inverts it.
var (
	lineKeys     []string
	lineKeyIndex = map[string]uint16{}
)

func init() {
	keys := []string{"", "id:col", "expect.json_schema:line", "expect.json_schema:col"}
	keys = append(keys, caseFields...)
	for _, f := range expectFields {
		keys = append(keys, "expect."+f)
	}
	for _, k := range keys {
		if _, dup := lineKeyIndex[k]; !dup {
			lineKeyIndex[k] = uint16(len(lineKeys))
			lineKeys = append(lineKeys, k)
		}
	}
}

// get returns the number recorded for key and whether there is one.
func (fl fieldLines) get(key string) (int, bool) {
	k, ok := lineKeyIndex[key]
	if !ok {
		return 0, false
	}
	for _, e := range fl {
		if e.key == k {
			return int(e.n), true
		}
	}
	return 0, false
}

// at is get without the flag: 0 when key has no number.
func (fl fieldLines) at(key string) int {
	n, _ := fl.get(key)
	return n
}

// set records n for key, replacing what was recorded.
func (fl *fieldLines) set(key string, n int) {
	k, ok := lineKeyIndex[key]
	if !ok {
		panic("suite: no line key " + key)
	}
	for i := range *fl {
		if (*fl)[i].key == k {
			(*fl)[i].n = int32(n)
			return
		}
	}
	*fl = append(*fl, fieldLine{key: k, n: int32(n)})
}

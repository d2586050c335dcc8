package sentence_test

import (
	"fmt"

	"github.com/assay-eval/assay/sentence"
)

func ExampleStrings() {
	for _, s := range sentence.Strings("Dr. Smith measured 3.5 points.[1] It held! 東京です。大阪です。") {
		fmt.Println(s)
	}
	// Output:
	// Dr. Smith measured 3.5 points.[1]
	// It held!
	// 東京です。
	// 大阪です。
}

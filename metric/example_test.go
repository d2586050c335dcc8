package metric_test

import (
	"fmt"

	"github.com/assay-eval/assay/metric"
)

func ExampleSpec_Eval() {
	ranking := []string{"d1", "d2", "d3", "d4", "d5"}
	judgments := map[string]int{"d1": 0, "d2": 1, "d3": 2, "d5": 1, "d9": 3}
	for _, name := range []string{"nDCG@10", "P@5", "R@5", "RR", "AP", "Success@1", "Rprec"} {
		sp, err := metric.Parse(name)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-12s %.4f\n", sp.Name, sp.Eval(ranking, judgments, metric.Options{}))
	}
	// Output:
	// ndcg@10      0.3886
	// precision@5  0.6000
	// recall@5     0.7500
	// mrr          0.5000
	// map          0.4417
	// hit@1        0.0000
	// rprec        0.5000
}

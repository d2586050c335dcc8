// Package agreement checks a model judge against people: it reads a
// labels file (people's verdicts on cases, per rubric criterion), measures
// how well a run's judge scores agree with them, corrects the judge's mean
// with the labels (prediction-powered inference), and says whether the
// judge is validated for gating (min_kappa). docs/judge.md is the user's
// contract.
//
// # Place in the pipeline
//
// After a run: Scores.Add reads the run's results one at a time (keeping
// only the labelled cases' scores and the moments of all), Compute makes
// the Report, WriteText and WriteJSON render it. assay judge agreement
// does this for a stored run; assay run does it at the end of a run whose
// judge names labels, and Report.Validate then decides whether the judge's
// gates are defined.
//
// # Definitions
//
// On each criterion, a score (the judge's, or a label's score) is a pass
// when it is at least the threshold, by default the middle of the scale;
// a pass label is the scale's max, a fail its min; a case labelled by
// several people gets their mean. Over the n labelled cases the judge
// scored (the judge's score of a case is the mean of its trials):
//
//   - accuracy po = (TP + TN) / n; TPR = TP / (TP + FN); TNR = TN / (TN + FP)
//   - Cohen's κ = (po − pe) / (1 − pe), pe = pJ·pH + (1 − pJ)(1 − pH),
//     pJ and pH the judge's and the people's pass rates; undefined when
//     pe = 1
//   - Gwet's AC1 = (po − pe) / (1 − pe), pe = 2π(1 − π), π = (pJ + pH)/2
//   - Spearman's ρ (when people gave scores): Pearson's r of the ranks,
//     ties at their mean rank
//   - intervals: the 2.5 % and 97.5 % quantiles (type 7) of the statistic
//     over DefaultResamples resamples of the n cases with replacement,
//     from a PCG generator seeded DefaultSeed (one stream per criterion),
//     κ, AC1 and ρ on the same resamples, those where a statistic is
//     undefined left out of its interval; past maxDraws cases drawn the
//     resamples are fewer (at least minResamples). A resample is a count
//     per case, and ranks are found by walking the cases sorted once, so
//     each costs O(n)
//   - PPI: θ = mean(judge over all N judged results) + mean(human − judge
//     over the n labelled cases), interval θ ± 1.96·√(s²_judge/N +
//     s²_diff/n), sample variances
//
// The judge is validated on a criterion when it has at least MinLabels
// labelled cases and κ ≥ min_kappa; Validate says why not otherwise.
//
// # Choices
//
// The labels file is JSON Lines, read up to LabelsLimit, lines up to
// MaxLabelLine, rows up to MaxLabels; every fault is a diag.PosError. A
// row with neither label nor score is a template row not filled in yet,
// skipped and counted. The template never carries the judge's scores.
package agreement

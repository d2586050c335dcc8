package grade

// The json_schema check's validator, registered as the assay command
// registers it (its init).
import _ "github.com/assay-eval/assay/grade/jsonschema"

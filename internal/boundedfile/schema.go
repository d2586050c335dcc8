package boundedfile

import "github.com/santhosh-tekuri/jsonschema/v6"

// SchemaLoader loads the files a JSON Schema's "$ref"s name (file:// URLs)
// under the Schema limit, as a jsonschema.Compiler's loader; the library's
// own FileLoader reads any file whole, /dev/zero included.
var SchemaLoader jsonschema.URLLoader = jsonschema.SchemeURLLoader{"file": schemaFileLoader{}}

type schemaFileLoader struct{}

func (schemaFileLoader) Load(url string) (any, error) {
	path, err := jsonschema.FileLoader{}.ToFile(url)
	if err != nil {
		return nil, err
	}
	f, err := Open(path, Schema)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return jsonschema.UnmarshalJSON(f)
}

package geminitest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// The strict decoder works like the API's proto JSON parser: the body is read
// into an ordered tree first (so map entries keep their index, which the
// API's paths use: properties[1].value), then walked against the wire
// structs. Every key must name a field (in lowerCamel or snake_case), every
// value must have the field's type, and every problem is reported in the
// API's wording: "Invalid JSON payload received. Unknown name "x" at
// 'tools[0].function_declarations[0].parameters': Cannot find field."

// maxNesting is the deepest JSON nesting the parser accepts, as proto
// parsers cap recursion.
const maxNesting = 100

type jsonKind int

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

// jsonValue is a parsed JSON value that keeps object keys in order.
type jsonValue struct {
	kind jsonKind
	b    bool
	num  json.Number
	str  string
	keys []string     // object keys, in document order
	vals []*jsonValue // object values (parallel to keys) or array elements
}

// parseJSON parses exactly one JSON value from data.
func parseJSON(data []byte) (*jsonValue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the top-level value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder, depth int) (*jsonValue, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("nesting deeper than %d levels", maxNesting)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &jsonValue{kind: jsonNull}, nil
	case bool:
		return &jsonValue{kind: jsonBool, b: t}, nil
	case json.Number:
		return &jsonValue{kind: jsonNumber, num: t}, nil
	case string:
		return &jsonValue{kind: jsonString, str: t}, nil
	case json.Delim:
		v := &jsonValue{kind: jsonArray}
		if t == '{' {
			v.kind = jsonObject
		}
		for dec.More() {
			if v.kind == jsonObject {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v.keys = append(v.keys, k.(string))
			}
			e, err := parseValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			v.vals = append(v.vals, e)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return v, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// toAny converts v to the form encoding/json gives an `any`: maps, slices,
// float64, string, bool, nil.
func (v *jsonValue) toAny() any {
	switch v.kind {
	case jsonBool:
		return v.b
	case jsonNumber:
		f, _ := strconv.ParseFloat(string(v.num), 64)
		return f
	case jsonString:
		return v.str
	case jsonArray:
		out := make([]any, len(v.vals))
		for i, e := range v.vals {
			out[i] = e.toAny()
		}
		return out
	case jsonObject:
		out := make(map[string]any, len(v.keys))
		for i, k := range v.keys {
			out[k] = v.vals[i].toAny()
		}
		return out
	}
	return nil
}

// String renders v the way the API quotes a bad value in its messages.
func (v *jsonValue) String() string {
	switch v.kind {
	case jsonNull:
		return "null"
	case jsonBool:
		return strconv.FormatBool(v.b)
	case jsonNumber:
		return string(v.num)
	case jsonString:
		return strconv.Quote(v.str)
	case jsonArray:
		return "Starting an array on a scalar field"
	}
	return "Starting an object on a scalar field"
}

// decoder collects every problem found while decoding one request.
type decoder struct {
	errs   []string
	vertex bool // fields tagged wire:"vertex" are known
}

func (d *decoder) addf(format string, args ...any) {
	d.errs = append(d.errs, fmt.Sprintf(format, args...))
}

// unknown reports a key that names no field of the message at path.
func (d *decoder) unknown(key, path, reason string) {
	if path == "" {
		d.addf("Invalid JSON payload received. Unknown name %q: %s", key, reason)
		return
	}
	d.addf("Invalid JSON payload received. Unknown name %q at '%s': %s", key, path, reason)
}

// invalid reports a value of the wrong type at path; typ is the proto type
// as the API names it ("TYPE_STRING", "type.googleapis.com/...").
func (d *decoder) invalid(path, typ string, v *jsonValue) {
	d.addf("Invalid value at '%s' (%s), %s", path, typ, v)
}

// decodeRequest decodes body into req and returns every problem found, in
// document order; nil means the body is a valid GenerateContentRequest.
func decodeRequest(body []byte, req *wireRequest) []string {
	return decodeRequestOn(body, req, false)
}

// decodeRequestOn is decodeRequest for Vertex AI when vertex is true: the
// fields only Vertex AI has (tagged wire:"vertex") are then known.
func decodeRequestOn(body []byte, req *wireRequest, vertex bool) []string {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil // an empty body is an empty request
	}
	root, err := parseJSON(body)
	if err != nil {
		return []string{"Invalid JSON payload received. " + jsonSyntaxMessage(err)}
	}
	if root.kind != jsonObject {
		return []string{fmt.Sprintf("Invalid JSON payload received. Expected an object, got %s.", root)}
	}
	d := &decoder{vertex: vertex}
	d.message(root, reflect.ValueOf(req).Elem(), "")
	return d.errs
}

func jsonSyntaxMessage(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("Unexpected token at byte %d: %v.", se.Offset, se.Error())
	}
	return "Unexpected token: " + err.Error() + "."
}

// message decodes the JSON object v into the struct rv, found at path.
func (d *decoder) message(v *jsonValue, rv reflect.Value, path string) {
	if v.kind == jsonNull {
		return
	}
	if v.kind != jsonObject {
		d.invalid(path, protoTypeName(rv.Type()), v)
		return
	}
	fields := fieldsOf(rv.Type())
	part, isPart := rv.Addr().Interface().(*wirePart)
	for i, key := range v.keys {
		f, ok := fields[key]
		if !ok || f.vertex && !d.vertex {
			d.unknown(key, path, "Cannot find field.")
			continue
		}
		val := v.vals[i]
		ft := rv.Field(f.index).Type()
		if val.kind == jsonArray && ft.Kind() != reflect.Slice && ft.Kind() != reflect.Interface {
			d.unknown(key, path, "Proto field is not repeating, cannot start list.")
			continue
		}
		if isPart && partDataFields[f.name] && val.kind != jsonNull {
			if len(part.set) > 0 {
				d.addf("Invalid value at '%s' (oneof), oneof field 'data' is already set. Cannot set '%s'",
					joinPath(path, "data"), f.name)
				continue
			}
			part.set = append(part.set, f.name)
		}
		d.value(val, rv.Field(f.index), joinPath(path, snakeCase(f.name)))
	}
}

// value decodes v into the field rv, found at path.
func (d *decoder) value(v *jsonValue, rv reflect.Value, path string) {
	if v.kind == jsonNull {
		return // proto JSON: null leaves a field unset
	}
	t := rv.Type()
	if e, ok := enumValues[t.Name()]; ok && t.PkgPath() == reflect.TypeFor[wireType]().PkgPath() {
		d.enum(v, rv, path, e.proto, e.values)
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		if t.Elem().Kind() == reflect.Struct {
			d.message(v, p.Elem(), path)
		} else {
			d.value(v, p.Elem(), path)
		}
		rv.Set(p)
	case reflect.String:
		if v.kind != jsonString {
			d.invalid(path, "TYPE_STRING", v)
			return
		}
		rv.SetString(v.str)
	case reflect.Bool:
		if v.kind != jsonBool {
			d.invalid(path, "TYPE_BOOL", v)
			return
		}
		rv.SetBool(v.b)
	case reflect.Int32, reflect.Int64:
		d.integer(v, rv, path)
	case reflect.Float64:
		d.float(v, rv, path)
	case reflect.Interface:
		rv.Set(reflect.ValueOf(v.toAny()))
	case reflect.Slice:
		d.slice(v, rv, path)
	case reflect.Map:
		d.mapValue(v, rv, path)
	default:
		d.addf("geminitest: no decoder for %s at '%s'", t, path)
	}
}

func (d *decoder) enum(v *jsonValue, rv reflect.Value, path, proto string, values []string) {
	if v.kind == jsonString {
		for _, s := range values {
			if strings.EqualFold(s, v.str) {
				rv.SetString(s)
				return
			}
		}
	}
	d.invalid(path, "type.googleapis.com/google.ai.generativelanguage.v1beta."+proto, v)
}

func (d *decoder) integer(v *jsonValue, rv reflect.Value, path string) {
	typ := "TYPE_INT64"
	bits := 64
	if rv.Kind() == reflect.Int32 {
		typ, bits = "TYPE_INT32", 32
	}
	var s string
	switch v.kind {
	case jsonNumber:
		s = string(v.num)
	case jsonString: // proto JSON accepts quoted integers
		s = v.str
	default:
		d.invalid(path, typ, v)
		return
	}
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		// 5.0 and 1e2 are integers too.
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != math.Trunc(f) || f < math.MinInt64 || f > math.MaxInt64 {
			d.invalid(path, typ, v)
			return
		}
		n = int64(f)
		if bits == 32 && (n < math.MinInt32 || n > math.MaxInt32) {
			d.invalid(path, typ, v)
			return
		}
	}
	rv.SetInt(n)
}

func (d *decoder) float(v *jsonValue, rv reflect.Value, path string) {
	var s string
	switch v.kind {
	case jsonNumber:
		s = string(v.num)
	case jsonString:
		s = v.str
	default:
		d.invalid(path, "TYPE_DOUBLE", v)
		return
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		d.invalid(path, "TYPE_DOUBLE", v)
		return
	}
	rv.SetFloat(f)
}

func (d *decoder) slice(v *jsonValue, rv reflect.Value, path string) {
	t := rv.Type()
	if t.Elem().Kind() == reflect.Uint8 { // bytes: base64 text
		if v.kind != jsonString {
			d.invalid(path, "TYPE_BYTES", v)
			return
		}
		b, err := decodeBase64(v.str)
		if err != nil {
			d.addf("Invalid value at '%s' (TYPE_BYTES), Base64 decoding failed for %q", path, v.str)
			return
		}
		rv.SetBytes(b)
		return
	}
	if v.kind != jsonArray {
		d.invalid(path, protoTypeName(t.Elem()), v)
		return
	}
	out := reflect.MakeSlice(t, len(v.vals), len(v.vals))
	for i, e := range v.vals {
		epath := path + "[" + strconv.Itoa(i) + "]"
		if e.kind == jsonArray {
			d.invalid(epath, protoTypeName(t.Elem()), e)
			continue
		}
		d.value(e, out.Index(i), epath)
	}
	rv.Set(out)
}

func (d *decoder) mapValue(v *jsonValue, rv reflect.Value, path string) {
	t := rv.Type()
	if v.kind != jsonObject {
		d.invalid(path, protoTypeName(t), v)
		return
	}
	if t.Elem().Kind() == reflect.Interface { // google.protobuf.Struct
		rv.Set(reflect.ValueOf(v.toAny()))
		return
	}
	out := reflect.MakeMapWithSize(t, len(v.keys))
	for i, k := range v.keys {
		e := reflect.New(t.Elem()).Elem()
		epath := path + "[" + strconv.Itoa(i) + "].value"
		if v.vals[i].kind == jsonArray {
			d.unknown(k, path+"["+strconv.Itoa(i)+"]", "Proto field is not repeating, cannot start list.")
			continue
		}
		d.value(v.vals[i], e, epath)
		out.SetMapIndex(reflect.ValueOf(k), e)
	}
	rv.Set(out)
}

// decodeBase64 accepts standard and URL-safe base64, padded or not, as
// proto JSON does.
func decodeBase64(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("not base64")
}

// protoTypeName names t's proto type for "Invalid value" messages.
func protoTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "TYPE_STRING"
	case reflect.Bool:
		return "TYPE_BOOL"
	case reflect.Int32:
		return "TYPE_INT32"
	case reflect.Int64:
		return "TYPE_INT64"
	case reflect.Float64:
		return "TYPE_DOUBLE"
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return "type.googleapis.com/google.protobuf.Struct"
		}
		return "map"
	case reflect.Interface:
		return "type.googleapis.com/google.protobuf.Value"
	case reflect.Struct:
		name := strings.TrimPrefix(t.Name(), "wire")
		if name == "Request" {
			name = "GenerateContentRequest"
		}
		return "type.googleapis.com/google.ai.generativelanguage.v1beta." + name
	}
	return t.String()
}

type fieldInfo struct {
	index  int
	name   string // lowerCamel JSON name
	vertex bool   // only Vertex AI knows the field
}

var fieldCache sync.Map // reflect.Type -> map[string]fieldInfo

// fieldsOf maps both JSON spellings (lowerCamel and snake_case) of every
// wire field of the struct type t to the field.
func fieldsOf(t reflect.Type) map[string]fieldInfo {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]fieldInfo)
	}
	m := map[string]fieldInfo{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		info := fieldInfo{index: i, name: name, vertex: f.Tag.Get("wire") == "vertex"}
		m[name] = info
		m[snakeCase(name)] = info
	}
	fieldCache.Store(t, m)
	return m
}

// snakeCase turns a lowerCamel JSON name into the proto field name
// ("parametersJsonSchema" -> "parameters_json_schema").
func snakeCase(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			b.WriteByte('_')
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

func joinPath(path, elem string) string {
	if path == "" {
		return elem
	}
	if elem == "" {
		return path
	}
	return path + "." + elem
}

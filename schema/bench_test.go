package schema

import (
	"encoding/json"
	"fmt"
	"testing"
)

// Notion-like fixture. Real Notion MCP servers emit one input schema per tool
// with a root $defs holding hundreds of definitions: rich text, ~25 block
// kinds that nest children recursively, property values, filters built from
// oneOf/const conditions that recurse through "and"/"or", sorts, parents.
// notionSchema builds such a schema deterministically; scale repeats every
// definition family under a new suffix, so the schema grows linearly.

var (
	notionColors = []string{"default", "gray", "brown", "orange", "yellow", "green", "blue", "purple", "pink", "red",
		"gray_background", "brown_background", "orange_background", "yellow_background", "green_background",
		"blue_background", "purple_background", "pink_background", "red_background"}
	notionBlocks = []string{"paragraph", "heading_1", "heading_2", "heading_3", "bulleted_list_item",
		"numbered_list_item", "to_do", "toggle", "quote", "callout", "code", "equation", "divider", "bookmark",
		"embed", "image", "video", "file", "pdf", "table_of_contents", "breadcrumb", "column_list", "column",
		"synced_block", "template", "link_to_page", "table", "table_row"}
	notionProps = []string{"title", "rich_text", "number", "select", "multi_select", "status", "date", "people",
		"files", "checkbox", "url", "email", "phone_number", "relation", "formula", "rollup", "created_time",
		"created_by", "last_edited_time", "last_edited_by", "unique_id"}
	notionLanguages = []string{"bash", "c", "c++", "css", "go", "html", "java", "javascript", "json", "kotlin",
		"markdown", "plain text", "python", "ruby", "rust", "shell", "sql", "swift", "typescript", "yaml"}
)

type jsonObj = map[string]any

func notionRef(name, suffix string) jsonObj { return jsonObj{"$ref": "#/$defs/" + name + suffix} }

func notionStrings(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

// notionSchema returns a Notion-like inputSchema; scale >= 1.
func notionSchema(scale int) jsonObj {
	defs := jsonObj{}
	props := jsonObj{}
	for k := range scale {
		sfx := ""
		if k > 0 {
			sfx = fmt.Sprintf("_v%d", k+1)
		}
		notionFamily(defs, sfx)
		props["parent"+sfx] = notionRef("parent", sfx)
		props["properties"+sfx] = jsonObj{"type": "object", "description": "Property values of the page.",
			"additionalProperties": notionRef("propertyValue", sfx)}
		props["children"+sfx] = jsonObj{"type": "array", "maxItems": 100, "items": notionRef("blockObjectRequest", sfx),
			"description": "Blocks to append as page content."}
		props["filter"+sfx] = notionRef("filter", sfx)
		props["schema"+sfx] = jsonObj{"type": "object", "additionalProperties": notionRef("propertySchema", sfx)}
		props["updates"+sfx] = jsonObj{"type": "array", "items": notionRef("blockUpdateRequest", sfx)}
		props["sorts"+sfx] = jsonObj{"type": "array", "items": notionRef("sort", sfx)}
		props["icon"+sfx] = jsonObj{"anyOf": []any{notionRef("icon", sfx), jsonObj{"type": "null"}}}
		props["cover"+sfx] = jsonObj{"anyOf": []any{notionRef("fileObject", sfx), jsonObj{"type": "null"}}}
	}
	props["start_cursor"] = jsonObj{"type": "string", "format": "uuid"}
	props["page_size"] = jsonObj{"type": "integer", "minimum": 1, "maximum": 100, "default": 100}
	return jsonObj{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"type":                 "object",
		"$defs":                defs,
		"properties":           props,
		"required":             []any{"parent"},
		"additionalProperties": false,
	}
}

// notionFamily adds one copy of every definition, names suffixed by sfx.
func notionFamily(defs jsonObj, sfx string) {
	ref := func(name string) jsonObj { return notionRef(name, sfx) }
	constProp := func(v string) jsonObj { return jsonObj{"type": "string", "const": v} }
	defs["color"+sfx] = jsonObj{"type": "string", "enum": notionStrings(notionColors)}
	defs["annotations"+sfx] = jsonObj{"type": "object", "properties": jsonObj{
		"bold": jsonObj{"type": "boolean"}, "italic": jsonObj{"type": "boolean"},
		"strikethrough": jsonObj{"type": "boolean"}, "underline": jsonObj{"type": "boolean"},
		"code": jsonObj{"type": "boolean"}, "color": ref("color"),
	}, "additionalProperties": false}
	defs["link"+sfx] = jsonObj{"anyOf": []any{
		jsonObj{"type": "object", "properties": jsonObj{"url": jsonObj{"type": "string", "format": "uri"}}, "required": []any{"url"}},
		jsonObj{"type": "null"}}}
	defs["richTextItem"+sfx] = jsonObj{"oneOf": []any{
		jsonObj{"type": "object", "properties": jsonObj{"type": constProp("text"),
			"text": jsonObj{"type": "object", "properties": jsonObj{
				"content": jsonObj{"type": "string", "maxLength": 2000}, "link": ref("link")},
				"required": []any{"content"}, "additionalProperties": false},
			"annotations": ref("annotations")}, "required": []any{"text"}},
		jsonObj{"type": "object", "properties": jsonObj{"type": constProp("mention"),
			"mention": jsonObj{"oneOf": []any{
				jsonObj{"type": "object", "properties": jsonObj{"user": jsonObj{"$ref": "#/$defs/partialUser" + sfx}}},
				jsonObj{"type": "object", "properties": jsonObj{"page": jsonObj{"type": "object",
					"properties": jsonObj{"id": jsonObj{"type": "string", "format": "uuid"}}}}},
				jsonObj{"type": "object", "properties": jsonObj{"date": ref("dateRequest")}},
			}}, "annotations": ref("annotations")}, "required": []any{"mention"}},
		jsonObj{"type": "object", "properties": jsonObj{"type": constProp("equation"),
			"equation": jsonObj{"type": "object", "properties": jsonObj{"expression": jsonObj{"type": "string"}},
				"required": []any{"expression"}},
			"annotations": ref("annotations")}, "required": []any{"equation"}},
	}}
	defs["richText"+sfx] = jsonObj{"type": "array", "items": ref("richTextItem"), "maxItems": 100}
	defs["partialUser"+sfx] = jsonObj{"type": "object", "properties": jsonObj{
		"id": jsonObj{"type": "string", "format": "uuid"}, "object": constProp("user")}, "required": []any{"id"}}
	defs["dateRequest"+sfx] = jsonObj{"type": "object", "properties": jsonObj{
		"start":     jsonObj{"type": "string", "format": "date"},
		"end":       jsonObj{"type": []any{"string", "null"}, "format": "date"},
		"time_zone": jsonObj{"type": []any{"string", "null"}}}, "required": []any{"start"}}
	defs["fileObject"+sfx] = jsonObj{"oneOf": []any{
		jsonObj{"type": "object", "properties": jsonObj{"type": constProp("external"),
			"external": jsonObj{"type": "object", "properties": jsonObj{"url": jsonObj{"type": "string", "format": "uri"}},
				"required": []any{"url"}}}, "required": []any{"external"}},
		jsonObj{"type": "object", "properties": jsonObj{"type": constProp("file_upload"),
			"file_upload": jsonObj{"type": "object", "properties": jsonObj{"id": jsonObj{"type": "string", "format": "uuid"}}}}},
	}}
	defs["icon"+sfx] = jsonObj{"oneOf": []any{
		jsonObj{"type": "object", "properties": jsonObj{"type": constProp("emoji"), "emoji": jsonObj{"type": "string"}},
			"required": []any{"emoji"}},
		ref("fileObject"),
	}}
	defs["parent"+sfx] = jsonObj{"oneOf": []any{
		jsonObj{"type": "object", "properties": jsonObj{"type": constProp("page_id"),
			"page_id": jsonObj{"type": "string", "format": "uuid"}}, "required": []any{"page_id"}},
		jsonObj{"type": "object", "properties": jsonObj{"type": constProp("database_id"),
			"database_id": jsonObj{"type": "string", "format": "uuid"}}, "required": []any{"database_id"}},
		jsonObj{"type": "object", "properties": jsonObj{"type": constProp("workspace"),
			"workspace": jsonObj{"const": true}}, "required": []any{"workspace"}},
	}}

	// Blocks: each kind nests children that may be any block again.
	var blockRefs, updateRefs []any
	for _, b := range notionBlocks {
		body := jsonObj{"rich_text": ref("richText"), "color": ref("color"),
			"children": jsonObj{"type": "array", "items": ref("blockObjectRequest"), "maxItems": 100}}
		switch b {
		case "to_do":
			body["checked"] = jsonObj{"type": "boolean"}
		case "code":
			body["language"] = jsonObj{"type": "string", "enum": notionStrings(notionLanguages)}
			body["caption"] = ref("richText")
		case "heading_1", "heading_2", "heading_3":
			body["is_toggleable"] = jsonObj{"type": "boolean"}
		case "callout":
			body["icon"] = ref("icon")
		case "image", "video", "file", "pdf":
			body = jsonObj{"file": ref("fileObject"), "caption": ref("richText")}
		case "bookmark", "embed":
			body = jsonObj{"url": jsonObj{"type": "string", "format": "uri"}, "caption": ref("richText")}
		case "equation":
			body = jsonObj{"expression": jsonObj{"type": "string"}}
		case "divider", "breadcrumb", "table_of_contents":
			body = jsonObj{}
		case "table":
			body = jsonObj{"table_width": jsonObj{"type": "integer", "exclusiveMinimum": 0},
				"has_column_header": jsonObj{"type": "boolean"}, "children": jsonObj{"type": "array", "items": ref("block_table_row")}}
		case "table_row":
			body = jsonObj{"cells": jsonObj{"type": "array", "items": ref("richText")}}
		}
		defs["blockContent_"+b+sfx] = jsonObj{"type": "object", "properties": body, "additionalProperties": false}
		defs["block_"+b+sfx] = jsonObj{"type": "object", "properties": jsonObj{
			"object": constProp("block"), "type": constProp(b), b: ref("blockContent_" + b),
		}, "required": []any{b}, "additionalProperties": false}
		defs["blockUpdate_"+b+sfx] = jsonObj{"type": "object", "properties": jsonObj{
			b: ref("blockContent_" + b), "archived": jsonObj{"type": "boolean"}, "in_trash": jsonObj{"type": "boolean"},
		}, "required": []any{b}}
		blockRefs = append(blockRefs, ref("block_"+b))
		updateRefs = append(updateRefs, ref("blockUpdate_"+b))
	}
	defs["blockObjectRequest"+sfx] = jsonObj{"oneOf": blockRefs}
	defs["blockUpdateRequest"+sfx] = jsonObj{"oneOf": updateRefs}

	// Property values and filters.
	var valueRefs, filterRefs, schemaRefs, itemRefs []any
	for _, p := range notionProps {
		var value, cond any
		switch p {
		case "title", "rich_text":
			value, cond = ref("richText"), jsonObj{"oneOf": []any{
				jsonObj{"type": "object", "properties": jsonObj{"equals": jsonObj{"type": "string"}}, "required": []any{"equals"}},
				jsonObj{"type": "object", "properties": jsonObj{"contains": jsonObj{"type": "string"}}, "required": []any{"contains"}},
				jsonObj{"type": "object", "properties": jsonObj{"is_empty": jsonObj{"const": true}}, "required": []any{"is_empty"}},
			}}
		case "number", "unique_id":
			value, cond = jsonObj{"type": []any{"number", "null"}}, jsonObj{"oneOf": []any{
				jsonObj{"type": "object", "properties": jsonObj{"equals": jsonObj{"type": "number"}}, "required": []any{"equals"}},
				jsonObj{"type": "object", "properties": jsonObj{"greater_than": jsonObj{"type": "number"}}},
				jsonObj{"type": "object", "properties": jsonObj{"less_than_or_equal_to": jsonObj{"type": "number"}}},
			}}
		case "checkbox":
			value, cond = jsonObj{"type": "boolean"}, jsonObj{"type": "object",
				"properties": jsonObj{"equals": jsonObj{"type": "boolean"}, "does_not_equal": jsonObj{"type": "boolean"}}}
		case "select", "status", "multi_select":
			opt := jsonObj{"type": "object", "properties": jsonObj{"name": jsonObj{"type": "string", "maxLength": 100},
				"color": ref("color"), "id": jsonObj{"type": "string"}}}
			if p == "multi_select" {
				value = jsonObj{"type": "array", "items": opt}
			} else {
				value = jsonObj{"anyOf": []any{opt, jsonObj{"type": "null"}}}
			}
			cond = jsonObj{"type": "object", "properties": jsonObj{"equals": jsonObj{"type": "string"},
				"is_not_empty": jsonObj{"const": true}}}
		case "date", "created_time", "last_edited_time":
			value, cond = jsonObj{"anyOf": []any{ref("dateRequest"), jsonObj{"type": "null"}}}, jsonObj{"type": "object",
				"properties": jsonObj{"before": jsonObj{"type": "string", "format": "date-time"},
					"past_week":  jsonObj{"type": "object", "additionalProperties": false},
					"next_month": jsonObj{"type": "object", "maxProperties": 0}}}
		case "people", "created_by", "last_edited_by":
			value, cond = jsonObj{"type": "array", "items": ref("partialUser")}, jsonObj{"type": "object",
				"properties": jsonObj{"contains": jsonObj{"type": "string", "format": "uuid"}}}
		case "relation":
			value, cond = jsonObj{"type": "array", "items": jsonObj{"type": "object",
				"properties": jsonObj{"id": jsonObj{"type": "string", "format": "uuid"}}, "required": []any{"id"}}},
				jsonObj{"type": "object", "properties": jsonObj{"contains": jsonObj{"type": "string", "format": "uuid"}}}
		case "files":
			value, cond = jsonObj{"type": "array", "items": ref("fileObject")}, jsonObj{"type": "object",
				"properties": jsonObj{"is_empty": jsonObj{"const": true}}}
		default: // url, email, phone_number, formula, rollup
			value, cond = jsonObj{"type": []any{"string", "null"}}, jsonObj{"type": "object",
				"properties": jsonObj{"equals": jsonObj{"type": "string"}, "starts_with": jsonObj{"type": "string"}}}
		}
		defs["propertyValue_"+p+sfx] = jsonObj{"type": "object", "properties": jsonObj{
			"type": constProp(p), p: value}, "required": []any{p}}
		defs["condition_"+p+sfx] = cond
		defs["propertyFilter_"+p+sfx] = jsonObj{"type": "object", "properties": jsonObj{
			"property": jsonObj{"type": "string"}, p: ref("condition_" + p)}, "required": []any{"property", p}}
		defs["propertySchema_"+p+sfx] = notionPropertySchema(p, sfx)
		defs["propertyItem_"+p+sfx] = jsonObj{"type": "object", "properties": jsonObj{
			"object": constProp("property_item"), "id": jsonObj{"type": "string"}, "type": constProp(p),
			p: ref("propertyValue_" + p), "next_cursor": jsonObj{"type": []any{"string", "null"}},
		}, "required": []any{"object", "id", "type"}}
		valueRefs = append(valueRefs, ref("propertyValue_"+p))
		filterRefs = append(filterRefs, ref("propertyFilter_"+p))
		schemaRefs = append(schemaRefs, ref("propertySchema_"+p))
		itemRefs = append(itemRefs, ref("propertyItem_"+p))
	}
	defs["propertyValue"+sfx] = jsonObj{"oneOf": valueRefs}
	defs["propertySchema"+sfx] = jsonObj{"oneOf": schemaRefs}
	defs["propertyItem"+sfx] = jsonObj{"oneOf": itemRefs}
	defs["filter"+sfx] = jsonObj{"oneOf": append(filterRefs,
		jsonObj{"type": "object", "properties": jsonObj{"or": jsonObj{"type": "array", "items": ref("filter"), "maxItems": 100}},
			"required": []any{"or"}},
		jsonObj{"type": "object", "properties": jsonObj{"and": jsonObj{"type": "array", "items": ref("filter"), "maxItems": 100}},
			"required": []any{"and"}},
	)}
	defs["sort"+sfx] = jsonObj{"oneOf": []any{
		jsonObj{"type": "object", "properties": jsonObj{"property": jsonObj{"type": "string"},
			"direction": jsonObj{"enum": []any{"ascending", "descending"}}}, "required": []any{"property", "direction"}},
		jsonObj{"type": "object", "properties": jsonObj{"timestamp": jsonObj{"enum": []any{"created_time", "last_edited_time"}},
			"direction": jsonObj{"enum": []any{"ascending", "descending"}}}, "required": []any{"timestamp", "direction"}},
	}}
}

// notionPropertySchema is the database column configuration for property
// kind p, as sent when creating or updating a database.
func notionPropertySchema(p, sfx string) jsonObj {
	cfg := jsonObj{"type": "object", "properties": jsonObj{}, "additionalProperties": false}
	switch p {
	case "number":
		cfg = jsonObj{"type": "object", "properties": jsonObj{"format": jsonObj{"type": "string",
			"enum": []any{"number", "number_with_commas", "percent", "dollar", "euro", "yen"}}}}
	case "select", "multi_select", "status":
		cfg = jsonObj{"type": "object", "properties": jsonObj{"options": jsonObj{"type": "array", "maxItems": 100,
			"items": jsonObj{"type": "object", "properties": jsonObj{"name": jsonObj{"type": "string"},
				"color": notionRef("color", sfx)}, "required": []any{"name"}}}}}
	case "formula":
		cfg = jsonObj{"type": "object", "properties": jsonObj{"expression": jsonObj{"type": "string"}},
			"required": []any{"expression"}}
	case "relation":
		cfg = jsonObj{"type": "object", "properties": jsonObj{
			"database_id": jsonObj{"type": "string", "format": "uuid"},
			"type":        jsonObj{"enum": []any{"single_property", "dual_property"}},
			"dual_property": jsonObj{"type": "object", "properties": jsonObj{
				"synced_property_name": jsonObj{"type": "string"}}},
		}, "required": []any{"database_id"}}
	case "unique_id":
		cfg = jsonObj{"type": "object", "properties": jsonObj{"prefix": jsonObj{"type": []any{"string", "null"}}}}
	}
	return jsonObj{"type": "object", "properties": jsonObj{
		"name": jsonObj{"type": "string"}, "description": jsonObj{"type": "string", "maxLength": 280},
		p: cfg}, "required": []any{p}}
}

// notionJSON is notionSchema(scale) as indented JSON.
func notionJSON(tb testing.TB, scale int) []byte {
	tb.Helper()
	b, err := json.MarshalIndent(notionSchema(scale), "", " ")
	if err != nil {
		tb.Fatalf("marshal notion fixture: %v", err)
	}
	return b
}

// BenchmarkConvertNotion converts the Notion-like fixture for each target,
// then versions 1x, 2x, 4x and 8x its size, to show how cost scales.
func BenchmarkConvertNotion(b *testing.B) {
	bench := func(b *testing.B, raw []byte, target Target) {
		b.ReportAllocs()
		b.SetBytes(int64(len(raw)))
		opts := &Options{Target: target}
		for b.Loop() {
			if _, err := Convert(raw, opts); err != nil {
				b.Fatal(err)
			}
		}
	}
	raw := notionJSON(b, 1)
	for _, target := range allTargets {
		b.Run(target.String(), func(b *testing.B) { bench(b, raw, target) })
	}
	for _, scale := range []int{1, 2, 4, 8} {
		raw := notionJSON(b, scale)
		for _, target := range allTargets {
			b.Run(fmt.Sprintf("%dx/%v", scale, target), func(b *testing.B) { bench(b, raw, target) })
		}
	}
}

// BenchmarkCheckNotion measures the checker on the converted fixture.
func BenchmarkCheckNotion(b *testing.B) {
	raw := notionJSON(b, 1)
	for _, target := range allTargets {
		res, err := Convert(raw, &Options{Target: target})
		if err != nil {
			b.Fatal(err)
		}
		decl := res.Declaration("notion_create_page", "")
		all := CheckDeclaration(decl, target)
		if len(all) > 0 {
			b.Fatalf("CheckDeclaration = %v", firstViolations(all))
		}
		b.Run(target.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got := CheckDeclaration(decl, target); len(got) != len(all) {
					b.Fatalf("CheckDeclaration gave %d violations, then %d", len(all), len(got))
				}
			}
		})
	}
}

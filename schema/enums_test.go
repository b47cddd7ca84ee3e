package schema

import "testing"

func TestEnums(t *testing.T) {
	cvRun(t, []cvCase{{
		name:    "const/written as a one-member enum",
		in:      `{"type":"object","properties":{"c":{"const":"fixed"},"n":{"const":5}}}`,
		want:    `{"type":"OBJECT","properties":{"c":{"type":"STRING","enum":["fixed"]},"n":{"type":"STRING","enum":["5"]}}}`,
		changes: []string{"properties.c: const", "properties.n: const", "properties.n: enum"},
	}, {
		name:    "enum with non-strings/stringified, type forced to STRING",
		in:      `{"type":"object","properties":{"i":{"type":"integer","enum":[1,2,3],"minimum":1,"format":"int32"},"b":{"type":"boolean","enum":[true,false]}}}`,
		want:    `{"type":"OBJECT","properties":{"i":{"type":"STRING","enum":["1","2","3"]},"b":{"type":"STRING","enum":["true","false"]}}}`,
		changes: []string{"properties.i: enum", "properties.i: type", "properties.i: minimum", "properties.i: format"},
	}, {
		name:    "enum on a non-STRING type or without type/type STRING",
		in:      `{"type":"object","properties":{"e":{"enum":["a","b"]},"o":{"type":"object","enum":[{"a":1},[1,2]]}}}`,
		want:    `{"type":"OBJECT","properties":{"e":{"type":"STRING","enum":["a","b"]},"o":{"type":"STRING","enum":["{\"a\":1}","[1,2]"]}}}`,
		changes: []string{"properties.e: type", "properties.o: type"},
	}, {
		name:    "empty or null in enum/dropped, null becomes nullable, duplicates dropped",
		in:      `{"type":"object","properties":{"e":{"type":["string","null"],"enum":["a","",null,"a","b"]}}}`,
		want:    `{"type":"OBJECT","properties":{"e":{"type":"STRING","nullable":true,"enum":["a","b"]}}}`,
		changes: []string{"properties.e: enum"},
	}, {
		name:    "enum with non-strings/a number colliding with a string member gets a kind suffix",
		in:      `{"type":"object","properties":{"m":{"enum":[1,"1",true,"true",1.5,-1,1e3,"x"]}}}`,
		want:    `{"type":"OBJECT","properties":{"m":{"type":"STRING","enum":["1 (number)","1","true (boolean)","true","1.5","-1","1e3","x"]}}}`,
		changes: []string{"properties.m: enum"},
	}, {
		name: "enum/default and example are written as their member's string",
		in:   `{"type":"object","properties":{"i":{"type":"integer","enum":[1,2],"default":2,"example":1}}}`,
		want: `{"type":"OBJECT","properties":{"i":{"type":"STRING","enum":["1","2"],"default":"2","example":"1"}}}`,
	}, {
		name: "enum/string enums keep their string keywords and the enum format",
		in:   `{"type":"object","properties":{"s":{"type":"string","format":"enum","enum":["a","b"],"minLength":1}}}`,
		want: `{"type":"OBJECT","properties":{"s":{"type":"STRING","format":"enum","enum":["a","b"],"minLength":1}}}`,
	}, {
		name:    "empty or null in enum/only null left: a null node",
		in:      `{"type":"object","properties":{"n":{"enum":[null]}}}`,
		want:    `{"type":"OBJECT","properties":{"n":{"type":"NULL"}}}`,
		changes: []string{"properties.n: enum"},
	}, {
		name:    "empty or null in enum/only empty string left: enum dropped",
		in:      `{"type":"object","properties":{"s":{"type":"string","enum":[""]}}}`,
		want:    `{"type":"OBJECT","properties":{"s":{"type":"STRING"}}}`,
		changes: []string{"properties.s: enum"},
	}, {
		name:   "enum/JSONSchema target keeps non-string enums and const as they are",
		target: JSONSchema,
		in:     `{"type":"object","properties":{"i":{"type":"integer","enum":[1,2]},"c":{"const":5}}}`,
		want:   `{"type":"object","properties":{"i":{"type":"integer","enum":[1,2]},"c":{"const":5}}}`,
	}})
}

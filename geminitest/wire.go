package geminitest

import (
	"net/http"
	"net/url"
)

// The types below mirror the v1beta REST GenerateContentRequest of the Gemini
// Developer API, field for field, under their JSON names. The strict decoder
// accepts exactly these keys (in lowerCamel or snake_case form, as proto JSON
// does); any other key is a 400. Messages the bridge never sends and that
// have many fields (speech, image, grounding configuration) are kept as free
// JSON objects (map[string]any) and are not checked key by key.

// Request is one generateContent or streamGenerateContent request received by
// the [Server]: the decoded body plus what arrived beside it. Numbers inside
// free JSON values (arguments, function responses, schema defaults) are
// float64, as encoding/json decodes them.
type Request struct {
	Contents          []*Content        `json:"contents"`
	SystemInstruction *Content          `json:"systemInstruction"`
	Tools             []*Tool           `json:"tools"`
	ToolConfig        *ToolConfig       `json:"toolConfig"`
	SafetySettings    []*SafetySetting  `json:"safetySettings"`
	GenerationConfig  *GenerationConfig `json:"generationConfig"`
	CachedContent     string            `json:"cachedContent"`
	Labels            map[string]string `json:"labels"`
	ServiceTier       string            `json:"serviceTier"`
	Store             *bool             `json:"store"`
	ContinuationToken []byte            `json:"continuationToken"`

	// Model is the model named in the URL, without the "models/" prefix.
	Model string `json:"-"`
	// Stream reports whether the request was streamGenerateContent.
	Stream bool `json:"-"`
	// Body is the raw request body, byte for byte.
	Body []byte `json:"-"`
	// Header holds the request's HTTP headers.
	Header http.Header `json:"-"`
	// Query holds the URL's query parameters.
	Query url.Values `json:"-"`
	// Rejection is the error message the server answered with ("" when
	// the request was accepted and passed to the script). A rejected
	// request may be only partly decoded.
	Rejection string `json:"-"`
	// Turn is the index of the script turn that answered the request, or
	// -1 when none did.
	Turn int `json:"-"`
}

// Content is a turn of the conversation: its role ("user" or "model") and
// parts.
type Content struct {
	Role  string  `json:"role"`
	Parts []*Part `json:"parts"`
}

// Part is one part of a Content. Exactly one of the data fields (Text,
// InlineData, FunctionCall, FunctionResponse, FileData, ExecutableCode,
// CodeExecutionResult, ToolCall, ToolResponse) must be set.
type Part struct {
	Text                string               `json:"text"`
	InlineData          *Blob                `json:"inlineData"`
	FunctionCall        *FunctionCall        `json:"functionCall"`
	FunctionResponse    *FunctionResponse    `json:"functionResponse"`
	FileData            *FileData            `json:"fileData"`
	ExecutableCode      *ExecutableCode      `json:"executableCode"`
	CodeExecutionResult *CodeExecutionResult `json:"codeExecutionResult"`
	ToolCall            map[string]any       `json:"toolCall"`
	ToolResponse        map[string]any       `json:"toolResponse"`

	Thought          bool           `json:"thought"`
	ThoughtSignature []byte         `json:"thoughtSignature"`
	VideoMetadata    *VideoMetadata `json:"videoMetadata"`
	PartMetadata     map[string]any `json:"partMetadata"`
	MediaResolution  map[string]any `json:"mediaResolution"`

	// set lists the JSON names of the data fields that were present, in
	// document order; the decoder fills it to enforce the oneof.
	set []string
}

// Blob is inline binary data.
type Blob struct {
	MIMEType    string `json:"mimeType"`
	Data        []byte `json:"data"`
	DisplayName string `json:"displayName"`
}

// FileData refers to an uploaded file by URI.
type FileData struct {
	MIMEType    string `json:"mimeType"`
	FileURI     string `json:"fileUri"`
	DisplayName string `json:"displayName"`
}

// FunctionCall is a call the model made.
type FunctionCall struct {
	ID   string         `json:"id"`
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// FunctionResponse is the answer to a FunctionCall.
type FunctionResponse struct {
	ID           string                  `json:"id"`
	Name         string                  `json:"name"`
	Response     map[string]any          `json:"response"`
	Parts        []*FunctionResponsePart `json:"parts"`
	WillContinue *bool                   `json:"willContinue"`
	Scheduling   Scheduling              `json:"scheduling"`
}

// FunctionResponsePart is binary data attached to a FunctionResponse.
type FunctionResponsePart struct {
	InlineData *FunctionResponseBlob `json:"inlineData"`
	FileData   *FileData             `json:"fileData"`
}

// FunctionResponseBlob is inline binary data of a FunctionResponsePart.
type FunctionResponseBlob struct {
	MIMEType    string `json:"mimeType"`
	Data        []byte `json:"data"`
	DisplayName string `json:"displayName"`
}

// ExecutableCode is code the model wrote for the code-execution tool.
type ExecutableCode struct {
	ID       string `json:"id"`
	Language string `json:"language"`
	Code     string `json:"code"`
}

// CodeExecutionResult is the result of running ExecutableCode.
type CodeExecutionResult struct {
	ID      string `json:"id"`
	Outcome string `json:"outcome"`
	Output  string `json:"output"`
}

// VideoMetadata selects part of a video. Offsets are proto Durations
// ("1.5s").
type VideoMetadata struct {
	StartOffset string   `json:"startOffset"`
	EndOffset   string   `json:"endOffset"`
	FPS         *float64 `json:"fps"`
}

// Tool is one entry of Request.Tools. At least one field must be set.
type Tool struct {
	FunctionDeclarations  []*FunctionDeclaration `json:"functionDeclarations"`
	GoogleSearchRetrieval map[string]any         `json:"googleSearchRetrieval"`
	CodeExecution         map[string]any         `json:"codeExecution"`
	GoogleSearch          map[string]any         `json:"googleSearch"`
	ComputerUse           map[string]any         `json:"computerUse"`
	URLContext            map[string]any         `json:"urlContext"`
	FileSearch            map[string]any         `json:"fileSearch"`
	GoogleMaps            map[string]any         `json:"googleMaps"`
	MCPServers            []map[string]any       `json:"mcpServers"`
}

// FunctionDeclaration declares one function the model may call.
type FunctionDeclaration struct {
	Name                 string   `json:"name"`
	Description          string   `json:"description"`
	Behavior             Behavior `json:"behavior"`
	Parameters           *Schema  `json:"parameters"`
	ParametersJSONSchema any      `json:"parametersJsonSchema"`
	Response             *Schema  `json:"response"`
	ResponseJSONSchema   any      `json:"responseJsonSchema"`
}

// Schema is the API's OpenAPI-subset schema: exactly the fields of the
// v1beta Schema message, so any other key (additionalProperties, $ref,
// oneOf, const ...) is an unknown name.
type Schema struct {
	Type             Type               `json:"type"`
	Format           string             `json:"format"`
	Title            string             `json:"title"`
	Description      string             `json:"description"`
	Nullable         *bool              `json:"nullable"`
	Enum             []string           `json:"enum"`
	MaxItems         *int64             `json:"maxItems"`
	MinItems         *int64             `json:"minItems"`
	Properties       map[string]*Schema `json:"properties"`
	Required         []string           `json:"required"`
	MinProperties    *int64             `json:"minProperties"`
	MaxProperties    *int64             `json:"maxProperties"`
	MinLength        *int64             `json:"minLength"`
	MaxLength        *int64             `json:"maxLength"`
	Pattern          string             `json:"pattern"`
	Example          any                `json:"example"`
	AnyOf            []*Schema          `json:"anyOf"`
	PropertyOrdering []string           `json:"propertyOrdering"`
	Default          any                `json:"default"`
	Items            *Schema            `json:"items"`
	Minimum          *float64           `json:"minimum"`
	Maximum          *float64           `json:"maximum"`
}

// ToolConfig configures how the model uses the tools.
type ToolConfig struct {
	FunctionCallingConfig            *FunctionCallingConfig `json:"functionCallingConfig"`
	RetrievalConfig                  map[string]any         `json:"retrievalConfig"`
	IncludeServerSideToolInvocations *bool                  `json:"includeServerSideToolInvocations"`
}

// FunctionCallingConfig restricts function calling.
type FunctionCallingConfig struct {
	Mode                 Mode     `json:"mode"`
	AllowedFunctionNames []string `json:"allowedFunctionNames"`
}

// SafetySetting is one safety threshold.
type SafetySetting struct {
	Category  string `json:"category"`
	Threshold string `json:"threshold"`
	Method    string `json:"method"`
}

// GenerationConfig holds the sampling and output options.
type GenerationConfig struct {
	StopSequences              []string        `json:"stopSequences"`
	ResponseMIMEType           string          `json:"responseMimeType"`
	ResponseSchema             *Schema         `json:"responseSchema"`
	ResponseJSONSchema         any             `json:"responseJsonSchema"`
	ResponseModalities         []string        `json:"responseModalities"`
	CandidateCount             *int32          `json:"candidateCount"`
	MaxOutputTokens            *int32          `json:"maxOutputTokens"`
	Temperature                *float64        `json:"temperature"`
	TopP                       *float64        `json:"topP"`
	TopK                       *int32          `json:"topK"`
	Seed                       *int32          `json:"seed"`
	PresencePenalty            *float64        `json:"presencePenalty"`
	FrequencyPenalty           *float64        `json:"frequencyPenalty"`
	ResponseLogprobs           *bool           `json:"responseLogprobs"`
	Logprobs                   *int32          `json:"logprobs"`
	EnableEnhancedCivicAnswers *bool           `json:"enableEnhancedCivicAnswers"`
	SpeechConfig               map[string]any  `json:"speechConfig"`
	ThinkingConfig             *ThinkingConfig `json:"thinkingConfig"`
	ImageConfig                map[string]any  `json:"imageConfig"`
	MediaResolution            string          `json:"mediaResolution"`
	AudioTranscriptionConfig   map[string]any  `json:"audioTranscriptionConfig"`
}

// ThinkingConfig configures the model's thinking.
type ThinkingConfig struct {
	IncludeThoughts *bool  `json:"includeThoughts"`
	ThinkingBudget  *int32 `json:"thinkingBudget"`
	ThinkingLevel   string `json:"thinkingLevel"`
}

// Type is a Schema type: STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT
// or NULL. The decoder accepts any letter case and stores upper case.
type Type string

// Mode is a function-calling mode: AUTO, ANY, NONE or VALIDATED.
type Mode string

// Behavior is a function's behavior: BLOCKING or NON_BLOCKING.
type Behavior string

// Scheduling says when a non-blocking function's response is delivered:
// SILENT, WHEN_IDLE or INTERRUPT.
type Scheduling string

// enumValues lists the proto enum values of each enum type, and the proto
// name used in error messages.
var enumValues = map[string]struct {
	proto  string
	values []string
}{
	"Type":       {"Type", []string{"TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}},
	"Mode":       {"FunctionCallingConfig.Mode", []string{"MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"}},
	"Behavior":   {"FunctionDeclaration.Behavior", []string{"UNSPECIFIED", "BLOCKING", "NON_BLOCKING"}},
	"Scheduling": {"FunctionResponse.Scheduling", []string{"SCHEDULING_UNSPECIFIED", "SILENT", "WHEN_IDLE", "INTERRUPT"}},
}

// partDataFields are the JSON names of Part's oneof `data`.
var partDataFields = map[string]bool{
	"text": true, "inlineData": true, "functionCall": true, "functionResponse": true,
	"fileData": true, "executableCode": true, "codeExecutionResult": true,
	"toolCall": true, "toolResponse": true,
}

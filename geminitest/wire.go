package geminitest

// The types below mirror the v1beta REST GenerateContentRequest of the Gemini
// Developer API, field for field, under their JSON names. The strict decoder
// accepts exactly these keys (in lowerCamel or snake_case form, as proto JSON
// does); any other key is a 400. Messages the bridge never sends and that
// have many fields (speech, image, grounding configuration) are kept as free
// JSON objects (map[string]any) and are not checked key by key.

// wireRequest is the body of a GenerateContentRequest as the strict decoder
// fills it. The decoder reads only the name in a json tag; omitempty (never
// on maps and slices, where empty is not absent: "codeExecution": {}) keeps
// absent fields absent when [Request.setBody] re-encodes the body.
type wireRequest struct {
	Contents          []*wireContent        `json:"contents"`
	SystemInstruction *wireContent          `json:"systemInstruction,omitempty"`
	Tools             []*wireTool           `json:"tools"`
	ToolConfig        *wireToolConfig       `json:"toolConfig,omitempty"`
	SafetySettings    []*wireSafetySetting  `json:"safetySettings"`
	GenerationConfig  *wireGenerationConfig `json:"generationConfig,omitempty"`
	CachedContent     string                `json:"cachedContent,omitempty"`
	Labels            map[string]string     `json:"labels"`
	ServiceTier       string                `json:"serviceTier,omitempty"`
	Store             *bool                 `json:"store,omitempty"`
	ContinuationToken []byte                `json:"continuationToken"`
}

// wireContent is a turn of the conversation: its role ("user" or "model") and
// parts.
type wireContent struct {
	Role  string      `json:"role,omitempty"`
	Parts []*wirePart `json:"parts"`
}

// wirePart is one part of a Content. Exactly one of the data fields (Text,
// InlineData, FunctionCall, FunctionResponse, FileData, ExecutableCode,
// CodeExecutionResult, ToolCall, ToolResponse) must be set.
type wirePart struct {
	Text                string                   `json:"text,omitempty"`
	InlineData          *wireBlob                `json:"inlineData,omitempty"`
	FunctionCall        *wireFunctionCall        `json:"functionCall,omitempty"`
	FunctionResponse    *wireFunctionResponse    `json:"functionResponse,omitempty"`
	FileData            *wireFileData            `json:"fileData,omitempty"`
	ExecutableCode      *wireExecutableCode      `json:"executableCode,omitempty"`
	CodeExecutionResult *wireCodeExecutionResult `json:"codeExecutionResult,omitempty"`
	ToolCall            map[string]any           `json:"toolCall"`
	ToolResponse        map[string]any           `json:"toolResponse"`

	Thought          bool               `json:"thought,omitempty"`
	ThoughtSignature []byte             `json:"thoughtSignature"`
	VideoMetadata    *wireVideoMetadata `json:"videoMetadata,omitempty"`
	PartMetadata     map[string]any     `json:"partMetadata"`
	MediaResolution  map[string]any     `json:"mediaResolution"`

	// set lists the JSON names of the data fields that were present, in
	// document order; the decoder fills it to enforce the oneof.
	set []string
}

// wireBlob is inline binary data.
type wireBlob struct {
	MIMEType    string `json:"mimeType,omitempty"`
	Data        []byte `json:"data"`
	DisplayName string `json:"displayName,omitempty"`
}

// wireFileData refers to an uploaded file by URI.
type wireFileData struct {
	MIMEType    string `json:"mimeType,omitempty"`
	FileURI     string `json:"fileUri,omitempty"`
	DisplayName string `json:"displayName,omitempty"`
}

// wireFunctionCall is a call the model made.
type wireFunctionCall struct {
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name,omitempty"`
	Args map[string]any `json:"args"`
}

// wireFunctionResponse is the answer to a FunctionCall.
type wireFunctionResponse struct {
	ID           string                      `json:"id,omitempty"`
	Name         string                      `json:"name,omitempty"`
	Response     map[string]any              `json:"response"`
	Parts        []*wireFunctionResponsePart `json:"parts"`
	WillContinue *bool                       `json:"willContinue,omitempty"`
	Scheduling   wireScheduling              `json:"scheduling,omitempty"`
}

// wireFunctionResponsePart is binary data attached to a FunctionResponse.
type wireFunctionResponsePart struct {
	InlineData *wireFunctionResponseBlob `json:"inlineData,omitempty"`
	FileData   *wireFileData             `json:"fileData,omitempty"`
}

// wireFunctionResponseBlob is inline binary data of a FunctionResponsePart.
type wireFunctionResponseBlob struct {
	MIMEType    string `json:"mimeType,omitempty"`
	Data        []byte `json:"data"`
	DisplayName string `json:"displayName,omitempty"`
}

// wireExecutableCode is code the model wrote for the code-execution tool.
type wireExecutableCode struct {
	ID       string `json:"id,omitempty"`
	Language string `json:"language,omitempty"`
	Code     string `json:"code,omitempty"`
}

// wireCodeExecutionResult is the result of running ExecutableCode.
type wireCodeExecutionResult struct {
	ID      string `json:"id,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	Output  string `json:"output,omitempty"`
}

// wireVideoMetadata selects part of a video. Offsets are proto Durations
// ("1.5s").
type wireVideoMetadata struct {
	StartOffset string   `json:"startOffset,omitempty"`
	EndOffset   string   `json:"endOffset,omitempty"`
	FPS         *float64 `json:"fps,omitempty"`
}

// wireTool is one entry of Request.Tools. At least one field must be set.
type wireTool struct {
	FunctionDeclarations  []*wireFunctionDeclaration `json:"functionDeclarations"`
	GoogleSearchRetrieval map[string]any             `json:"googleSearchRetrieval"`
	CodeExecution         map[string]any             `json:"codeExecution"`
	GoogleSearch          map[string]any             `json:"googleSearch"`
	ComputerUse           map[string]any             `json:"computerUse"`
	URLContext            map[string]any             `json:"urlContext"`
	FileSearch            map[string]any             `json:"fileSearch"`
	GoogleMaps            map[string]any             `json:"googleMaps"`
	MCPServers            []*wireMCPServer           `json:"mcpServers"`
}

// wireMCPServer is a remote MCP server the API calls itself (server-side
// MCP, Developer API only).
type wireMCPServer struct {
	Name                    string                       `json:"name,omitempty"`
	StreamableHTTPTransport *wireStreamableHTTPTransport `json:"streamableHttpTransport,omitempty"`
}

// wireStreamableHTTPTransport says how the API reaches an MCP server.
type wireStreamableHTTPTransport struct {
	URL              string            `json:"url,omitempty"`
	Headers          map[string]string `json:"headers"`
	Timeout          string            `json:"timeout,omitempty"`
	SSEReadTimeout   string            `json:"sseReadTimeout,omitempty"`
	TerminateOnClose *bool             `json:"terminateOnClose,omitempty"`
}

// wireFunctionDeclaration declares one function the model may call.
type wireFunctionDeclaration struct {
	Name                 string       `json:"name,omitempty"`
	Description          string       `json:"description,omitempty"`
	Behavior             wireBehavior `json:"behavior,omitempty"`
	Parameters           *wireSchema  `json:"parameters,omitempty"`
	ParametersJSONSchema any          `json:"parametersJsonSchema,omitempty"`
	Response             *wireSchema  `json:"response,omitempty"`
	ResponseJSONSchema   any          `json:"responseJsonSchema,omitempty"`
}

// wireSchema is the API's OpenAPI-subset schema: exactly the fields of the
// v1beta Schema message, so any other key (additionalProperties, $ref,
// oneOf, const ...) is an unknown name.
type wireSchema struct {
	Type             wireType               `json:"type,omitempty"`
	Format           string                 `json:"format,omitempty"`
	Title            string                 `json:"title,omitempty"`
	Description      string                 `json:"description,omitempty"`
	Nullable         *bool                  `json:"nullable,omitempty"`
	Enum             []string               `json:"enum"`
	MaxItems         *int64                 `json:"maxItems,omitempty"`
	MinItems         *int64                 `json:"minItems,omitempty"`
	Properties       map[string]*wireSchema `json:"properties"`
	Required         []string               `json:"required"`
	MinProperties    *int64                 `json:"minProperties,omitempty"`
	MaxProperties    *int64                 `json:"maxProperties,omitempty"`
	MinLength        *int64                 `json:"minLength,omitempty"`
	MaxLength        *int64                 `json:"maxLength,omitempty"`
	Pattern          string                 `json:"pattern,omitempty"`
	Example          any                    `json:"example,omitempty"`
	AnyOf            []*wireSchema          `json:"anyOf"`
	PropertyOrdering []string               `json:"propertyOrdering"`
	Default          any                    `json:"default,omitempty"`
	Items            *wireSchema            `json:"items,omitempty"`
	Minimum          *float64               `json:"minimum,omitempty"`
	Maximum          *float64               `json:"maximum,omitempty"`
}

// wireToolConfig configures how the model uses the tools.
type wireToolConfig struct {
	FunctionCallingConfig            *wireFunctionCallingConfig `json:"functionCallingConfig,omitempty"`
	RetrievalConfig                  map[string]any             `json:"retrievalConfig"`
	IncludeServerSideToolInvocations *bool                      `json:"includeServerSideToolInvocations,omitempty"`
}

// wireFunctionCallingConfig restricts function calling.
type wireFunctionCallingConfig struct {
	Mode                 wireMode `json:"mode,omitempty"`
	AllowedFunctionNames []string `json:"allowedFunctionNames"`
	// StreamFunctionCallArguments exists only on Vertex AI: the Developer
	// API does not know the field.
	StreamFunctionCallArguments *bool `json:"streamFunctionCallArguments,omitempty" wire:"vertex"`
}

// wireSafetySetting is one safety threshold.
type wireSafetySetting struct {
	Category  string `json:"category,omitempty"`
	Threshold string `json:"threshold,omitempty"`
	Method    string `json:"method,omitempty"`
}

// wireGenerationConfig holds the sampling and output options.
type wireGenerationConfig struct {
	StopSequences              []string            `json:"stopSequences"`
	ResponseMIMEType           string              `json:"responseMimeType,omitempty"`
	ResponseSchema             *wireSchema         `json:"responseSchema,omitempty"`
	ResponseJSONSchema         any                 `json:"responseJsonSchema,omitempty"`
	ResponseModalities         []string            `json:"responseModalities"`
	CandidateCount             *int32              `json:"candidateCount,omitempty"`
	MaxOutputTokens            *int32              `json:"maxOutputTokens,omitempty"`
	Temperature                *float64            `json:"temperature,omitempty"`
	TopP                       *float64            `json:"topP,omitempty"`
	TopK                       *int32              `json:"topK,omitempty"`
	Seed                       *int32              `json:"seed,omitempty"`
	PresencePenalty            *float64            `json:"presencePenalty,omitempty"`
	FrequencyPenalty           *float64            `json:"frequencyPenalty,omitempty"`
	ResponseLogprobs           *bool               `json:"responseLogprobs,omitempty"`
	Logprobs                   *int32              `json:"logprobs,omitempty"`
	EnableEnhancedCivicAnswers *bool               `json:"enableEnhancedCivicAnswers,omitempty"`
	SpeechConfig               map[string]any      `json:"speechConfig"`
	ThinkingConfig             *wireThinkingConfig `json:"thinkingConfig,omitempty"`
	ImageConfig                map[string]any      `json:"imageConfig"`
	MediaResolution            string              `json:"mediaResolution,omitempty"`
	AudioTranscriptionConfig   map[string]any      `json:"audioTranscriptionConfig"`
}

// wireThinkingConfig configures the model's thinking.
type wireThinkingConfig struct {
	IncludeThoughts *bool  `json:"includeThoughts,omitempty"`
	ThinkingBudget  *int32 `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
}

// wireType is a Schema type: STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT
// or NULL. The decoder accepts any letter case and stores upper case.
type wireType string

// wireMode is a function-calling mode: AUTO, ANY, NONE or VALIDATED.
type wireMode string

// wireBehavior is a function's behavior: BLOCKING or NON_BLOCKING.
type wireBehavior string

// wireScheduling says when a non-blocking function's response is delivered:
// SILENT, WHEN_IDLE or INTERRUPT.
type wireScheduling string

// enumValues lists the proto enum values of each enum type, and the proto
// name used in error messages.
var enumValues = map[string]struct {
	proto  string
	values []string
}{
	"wireType":       {"Type", []string{"TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}},
	"wireMode":       {"FunctionCallingConfig.Mode", []string{"MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"}},
	"wireBehavior":   {"FunctionDeclaration.Behavior", []string{"UNSPECIFIED", "BLOCKING", "NON_BLOCKING"}},
	"wireScheduling": {"FunctionResponse.Scheduling", []string{"SCHEDULING_UNSPECIFIED", "SILENT", "WHEN_IDLE", "INTERRUPT"}},
	"wireTaskType": {"TaskType", []string{"TASK_TYPE_UNSPECIFIED", "RETRIEVAL_QUERY", "RETRIEVAL_DOCUMENT", "SEMANTIC_SIMILARITY",
		"CLASSIFICATION", "CLUSTERING", "QUESTION_ANSWERING", "FACT_VERIFICATION", "CODE_RETRIEVAL_QUERY"}},
}

// partDataFields are the JSON names of Part's oneof `data`.
var partDataFields = map[string]bool{
	"text": true, "inlineData": true, "functionCall": true, "functionResponse": true,
	"fileData": true, "executableCode": true, "codeExecutionResult": true,
	"toolCall": true, "toolResponse": true,
}

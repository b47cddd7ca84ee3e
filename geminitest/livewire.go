package geminitest

import (
	"bytes"
	"fmt"
	"reflect"
)

// The types below mirror the messages a client sends on the Live API's
// WebSocket (BidiGenerateContent) in the Developer API's JSON, as the
// strict decoder reads them: exactly one of the message's fields, and
// exactly the keys of each message. Configuration the fake does not model
// (voice activity, audio transcription, session resumption ...) is kept as
// free JSON objects.

// wireLiveMessage is one client message.
type wireLiveMessage struct {
	Setup         *wireLiveSetup         `json:"setup,omitempty"`
	ClientContent *wireLiveClientContent `json:"clientContent,omitempty"`
	RealtimeInput *wireRealtimeInput     `json:"realtimeInput,omitempty"`
	ToolResponse  *wireLiveToolResponse  `json:"toolResponse,omitempty"`
}

// wireLiveSetup is the first message of a session.
type wireLiveSetup struct {
	Model                    string                `json:"model,omitempty"`
	GenerationConfig         *wireGenerationConfig `json:"generationConfig,omitempty"`
	SystemInstruction        *wireContent          `json:"systemInstruction,omitempty"`
	Tools                    []*wireTool           `json:"tools"`
	RealtimeInputConfig      map[string]any        `json:"realtimeInputConfig"`
	SessionResumption        map[string]any        `json:"sessionResumption"`
	ContextWindowCompression map[string]any        `json:"contextWindowCompression"`
	InputAudioTranscription  map[string]any        `json:"inputAudioTranscription"`
	OutputAudioTranscription map[string]any        `json:"outputAudioTranscription"`
	Proactivity              map[string]any        `json:"proactivity"`
	ExplicitVADSignal        *bool                 `json:"explicitVadSignal,omitempty"`
	SafetySettings           []*wireSafetySetting  `json:"safetySettings"`
	HistoryConfig            map[string]any        `json:"historyConfig"`
}

// wireLiveClientContent adds turns to the conversation.
type wireLiveClientContent struct {
	Turns        []*wireContent `json:"turns"`
	TurnComplete bool           `json:"turnComplete,omitempty"`
}

// wireRealtimeInput is realtime input; the fake reads only Text.
type wireRealtimeInput struct {
	MediaChunks       []map[string]any `json:"mediaChunks"`
	Audio             map[string]any   `json:"audio"`
	AudioStreamEnd    *bool            `json:"audioStreamEnd,omitempty"`
	Video             map[string]any   `json:"video"`
	Text              string           `json:"text,omitempty"`
	ActivityStart     map[string]any   `json:"activityStart"`
	ActivityEnd       map[string]any   `json:"activityEnd"`
	VideoStreamEnd    *bool            `json:"videoStreamEnd,omitempty"`
	TextStreamEnd     *bool            `json:"textStreamEnd,omitempty"`
	AudioStreamStatus map[string]any   `json:"audioStreamStatus"`
}

// wireLiveToolResponse answers the model's function calls.
type wireLiveToolResponse struct {
	FunctionResponses []*wireFunctionResponse `json:"functionResponses"`
}

// decodeLive decodes one client message strictly into m and returns every
// problem found; nil means a valid message with exactly one field set.
func decodeLive(body []byte, m *wireLiveMessage) []string {
	root, err := parseJSON(bytes.TrimSpace(body))
	if err != nil {
		return []string{"Invalid JSON payload received. " + jsonSyntaxMessage(err)}
	}
	if root.kind != jsonObject {
		return []string{fmt.Sprintf("Invalid JSON payload received. Expected an object, got %s.", root)}
	}
	d := &decoder{}
	d.message(root, reflect.ValueOf(m).Elem(), "")
	if len(d.errs) > 0 {
		return d.errs
	}
	set := 0
	for _, f := range []bool{m.Setup != nil, m.ClientContent != nil, m.RealtimeInput != nil, m.ToolResponse != nil} {
		if f {
			set++
		}
	}
	if set != 1 {
		return []string{fmt.Sprintf("Invalid value (oneof), a client message must set exactly one of setup, clientContent, realtimeInput, toolResponse; it sets %d", set)}
	}
	return nil
}

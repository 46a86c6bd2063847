package llmtest

import (
	"encoding/json"
	"fmt"
)

// checkResponses enforces the Responses API's rules on a stateless
// request (store false): input is not empty; a function_call_output
// answers an earlier function_call of the same call_id, once; every
// function_call is answered; a reasoning item carries its
// encrypted_content (nothing is stored to find it by id) and is followed
// by the assistant item it led to.
func checkResponses(body []byte) string {
	var req struct {
		Input json.RawMessage `json:"input"`
		Store *bool           `json:"store"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return "body is not a JSON object: " + err.Error()
	}
	var s string
	if json.Unmarshal(req.Input, &s) == nil {
		if s == "" {
			return "input: empty"
		}
		return ""
	}
	var items []struct {
		Type             string `json:"type"`
		Role             string `json:"role"`
		ID               string `json:"id"`
		CallID           string `json:"call_id"`
		EncryptedContent string `json:"encrypted_content"`
	}
	if err := json.Unmarshal(req.Input, &items); err != nil {
		return "input: " + err.Error()
	}
	if len(items) == 0 {
		return "input: empty"
	}
	stateless := req.Store != nil && !*req.Store
	calls, answered := map[string]bool{}, map[string]bool{}
	var order []string
	for i, it := range items {
		switch it.Type {
		case "function_call":
			calls[it.CallID] = true
			order = append(order, it.CallID)
		case "function_call_output":
			if !calls[it.CallID] || answered[it.CallID] {
				return fmt.Sprintf("input[%d]: no tool call found for function call output with call_id %s", i, it.CallID)
			}
			answered[it.CallID] = true
		case "reasoning":
			if stateless && it.EncryptedContent == "" {
				return fmt.Sprintf("input[%d]: item with id '%s' not found; items are not persisted when store is false", i, it.ID)
			}
			if i+1 >= len(items) || !(items[i+1].Type == "function_call" || items[i+1].Role == "assistant") {
				return fmt.Sprintf("input[%d]: item '%s' of type 'reasoning' was provided without its required following item", i, it.ID)
			}
		}
	}
	for _, id := range order {
		if !answered[id] {
			return "input: no tool output found for function call " + id
		}
	}
	return ""
}

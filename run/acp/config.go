package acp

import (
	"encoding/json"
	"slices"
)

// configModel is the id of the one configuration option: the model.
const configModel = "model"

// configOptions are the session's options: its model, among the models
// it may switch to.
func (ss *session) configOptions() []configOption {
	cur, choices := ss.eng.Models()
	opt := configOption{ID: configModel, Name: "Model", Category: "model", Type: "select", CurrentValue: cur,
		Options: []selectOption{}}
	for _, c := range choices {
		opt.Options = append(opt.Options, selectOption{Value: c, Name: c})
	}
	return []configOption{opt}
}

// setConfig is session/set_config_option: the model, one of those
// offered, from the next request on.
func (s *Server) setConfig(params json.RawMessage) (any, error) {
	var req setConfigRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	ss, err := s.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	if req.ConfigID != configModel {
		return nil, errorf(codeInvalidParams, "acp: no configuration option %q (rubichan offers %q)", req.ConfigID, configModel)
	}
	var value string
	if err := json.Unmarshal(req.Value, &value); err != nil {
		return nil, errorf(codeInvalidParams, "acp: the model must be a string value")
	}
	if _, choices := ss.eng.Models(); !slices.Contains(choices, value) {
		return nil, errorf(codeInvalidParams, "acp: model %q is not offered (%q)", value, choices)
	}
	if err := ss.eng.SetModel(value); err != nil {
		return nil, errorf(codeInvalidRequest, "%v", err)
	}
	return setConfigResponse{ConfigOptions: ss.configOptions()}, nil
}

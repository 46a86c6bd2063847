package acp

import (
	"context"
	"errors"
	"fmt"

	"github.com/rubichan/rubichan/llm"
	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/agent"
	"github.com/rubichan/rubichan/run/harness"
	"github.com/rubichan/rubichan/toolkit"
)

// Rule names of the person's answers given once in the editor; "always"
// answers are the policy session's [policy.RuleSession] and
// [policy.RuleSessionDeny], as in line mode.
const (
	ruleEditorAllow = "your answer in the editor"
	ruleEditorDeny  = "your answer in the editor"
)

// errNoAnswer is the cause of a permission request the client did not
// answer within the permission timeout.
var errNoAnswer = errors.New("acp: no answer to the permission request in time")

// permissionAsker asks the client (session/request_permission) about a
// call the policy marks "ask".
type permissionAsker struct {
	ss *session
	ap *harness.Approver
}

// asker is [OpenOptions.Asker].
func (ss *session) asker(ap *harness.Approver) agent.Asker { return permissionAsker{ss: ss, ap: ap} }

// Ask sends the permission request and returns the person's verdict.
// "Always" answers are recorded in the policy session, as line mode
// records them. No answer within the permission timeout leaves the call
// to the headless behaviour (on_ask); a cancelled request is a no.
func (a permissionAsker) Ask(ctx context.Context, call llm.Block, eff toolkit.Effects, v agent.Verdict) agent.Verdict {
	result, _ := v.Detail.(policy.Result)
	always := a.ap != nil && a.ap.Session() != nil && policy.Approvable(result)
	info := &agent.ToolCallInfo{ID: call.ID, Name: call.Name, Summary: eff.Summary, Input: call.Input}
	st := &callState{path: inputPath(call.Input)}
	tc := a.ss.callUpdate(info, st, statusPending)
	tc.SessionUpdate = ""
	if d := harness.PreviewDiff(call, eff); d != "" {
		tc.Content = []toolCallContent{textContent(d)}
	}
	req := permissionRequest{SessionID: a.ss.id, ToolCall: tc, Options: options(always)}
	if timeout := a.ss.srv.opt.PermissionTimeout; timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, errNoAnswer)
		defer cancel()
	}
	var resp permissionResponse
	if err := a.ss.srv.conn.call(ctx, "session/request_permission", req, &resp); err != nil {
		if errors.Is(err, errNoAnswer) {
			a.ss.note(fmt.Sprintf("no answer to the permission request for %s: %s", call.Name, v.Fact))
			return v
		}
		return refused(v, ruleEditorDeny, "no answer: "+err.Error())
	}
	if resp.Outcome.Outcome != "selected" {
		return refused(v, ruleEditorDeny, "the request was cancelled")
	}
	switch resp.Outcome.OptionID {
	case allowOnce:
		return agent.Verdict{Kind: agent.VerdictAllow, Rule: ruleEditorAllow, Fact: v.Fact, Reason: "you allowed it once"}
	case allowAlways:
		if always && a.ap.Session().Approve(result) == nil {
			return agent.Verdict{Kind: agent.VerdictAllow, Rule: policy.RuleSession, Fact: v.Fact, Reason: "you allowed it always, for this session"}
		}
	case rejectAlways:
		if always && a.ap.Session().DenyAlways(result) == nil {
			return refused(v, policy.RuleSessionDeny, "you rejected it always, for this session")
		}
	}
	return refused(v, ruleEditorDeny, "you rejected it")
}

// options are the answers offered: once, and always when the policy
// session can record the call's facts.
func options(always bool) []permissionOption {
	opts := []permissionOption{{OptionID: allowOnce, Name: "Allow once", Kind: allowOnce}}
	if always {
		opts = append(opts, permissionOption{OptionID: allowAlways, Name: "Allow always (this session)", Kind: allowAlways})
	}
	opts = append(opts, permissionOption{OptionID: rejectOnce, Name: "Reject", Kind: rejectOnce})
	if always {
		opts = append(opts, permissionOption{OptionID: rejectAlways, Name: "Reject always (this session)", Kind: rejectAlways})
	}
	return opts
}

// refused is the person's no: the model is told, and not to retry.
func refused(v agent.Verdict, rule, reason string) agent.Verdict {
	return agent.Verdict{Kind: agent.VerdictDeny, Rule: rule, Fact: v.Fact, Reason: reason,
		Message: fmt.Sprintf("The person in the editor refused this call: %s. Do not retry it or a variant; "+
			"take another approach, or stop and ask them what they want.", v.Fact)}
}

// Package skills reads Agent Skills: folders holding a SKILL.md whose YAML
// frontmatter follows the agentskills.io specification (name, description,
// license, compatibility, metadata, allowed-tools), beside optional
// scripts/, references/ and assets/. It owns the frontmatter parser and its
// validation ([ParseFrontmatter]), one skill's loading ([Load]), discovery
// over the user, workspace and --skills folders with the workspace trust
// rule and name collisions ([Discover]), and the catalogue the system
// prompt lists ([Catalogue]).
//
// It is a format leaf: it reads files, never the process environment, and
// imports nothing of rubichan's. The harness wires it into a run (the
// catalogue, the read rule of the skill folders, the init event); the
// command layer prints it (`rubichan skills`). A skill's allowed-tools is
// recorded and shown, never handed to the policy: nothing here decides
// what a tool call may do.
//
// The harness, line mode (/skills) and the command layer import it.
package skills

package run

// childEnv returns the environment of the run's other commands.
func (cfg execConfig) childEnv(env environment) childEnv {
	var environ []string
	if env.Environ != nil {
		environ = env.Environ()
	}
	return childEnv{Environ: childEnviron(environ, cfg.tel), EnvAllow: cfg.PassEnv, DropEnv: cfg.childDropEnv(), PathAdd: pathAdd(cfg), CallEnv: cfg.tel.Env}
}

package query

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/input"
	"github.com/rubichan/rubichan/run/subquery"
)

// queryJob is one request of a fan-out and what its answer line repeats.
type queryJob struct {
	req    subquery.Request
	offset int64 // --split: the chunk's byte range
	length int64
}

// answerLine is one JSONL answer of --batch or --split.
type answerLine struct {
	Index   int             `json:"index"`
	Offset  *int64          `json:"offset,omitempty"`
	Length  *int64          `json:"length,omitempty"`
	Text    string          `json:"text"`
	Model   string          `json:"model,omitempty"`
	Usage   subquery.Usage  `json:"usage"`
	CostUSD *float64        `json:"cost_usd"`
	Error   *subquery.Error `json:"error,omitempty"`
}

// fanJob is one job of a fan-out with its place in the output.
type fanJob struct {
	i   int
	job queryJob
}

// fanResult is the answer to one fanJob.
type fanResult struct {
	fanJob
	resp subquery.Response
	err  error
}

// fan is the plumbing of one fan-out: the jobs go out to the workers in
// order, at most window of them ahead of the answer written last, and
// stop closes once a limit or an interruption is met.
type fan struct {
	todo    chan fanJob
	results chan fanResult
	window  chan struct{}
	stop    chan struct{}
	once    sync.Once
	why     string // the error code that stopped it, set before stop closes
}

// halt stops the fan-out; the jobs it leaves unsent are answered with code
// (a limit, an interruption) or, when "", a limit.
func (f *fan) halt(code string) {
	f.once.Do(func() {
		f.why = code
		close(f.stop)
	})
}

// fanOut sends the jobs with q.Concurrency workers and writes one answer
// line per job in job order. A limit or an interruption stops it: no
// further request is sent, and it exits with that code.
func fanOut(ctx context.Context, q Options, ak asker, jobs func(yield func(queryJob) bool) error, stdout, stderr io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f := &fan{todo: make(chan fanJob), results: make(chan fanResult),
		window: make(chan struct{}, q.Concurrency*4), stop: make(chan struct{})}
	var wg sync.WaitGroup
	for range q.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.work(ctx, ak)
		}()
	}
	var genErr error
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		genErr = f.feed(jobs)
	}()
	go func() { wg.Wait(); close(f.results) }()
	w := bufio.NewWriter(stdout)
	worst, firstErr := f.collect(w, cancel)
	<-fed
	if err := w.Flush(); err != nil {
		return exit.StdoutError{Err: err}
	}
	return fanOutEnd(ctx, worst, firstErr, genErr, stderr)
}

// work sends the jobs it takes on one connection until there are no more;
// after stop it answers them unsent.
func (f *fan) work(ctx context.Context, ak asker) {
	s, err := ak.open(ctx)
	if s != nil {
		defer s.close()
	}
	for j := range f.todo {
		r := fanResult{fanJob: j, err: err}
		if err == nil {
			select {
			case <-f.stop:
				code := f.why
				if code == "" {
					code = subquery.CodeLimit
				}
				r.resp.Error = &subquery.Error{Code: code, Message: "not sent: the fan-out stopped"}
			default:
				r.resp, r.err = s.ask(ctx, j.job.req)
			}
		}
		if r.err == nil && r.resp.Error != nil && (r.resp.Error.Code == subquery.CodeLimit || r.resp.Error.Code == subquery.CodeInterrupted) {
			f.halt(r.resp.Error.Code)
		}
		f.results <- r
	}
}

// feed hands the jobs out in order, each once the window has room, until
// they run out or stop closes; it closes todo.
func (f *fan) feed(jobs func(yield func(queryJob) bool) error) error {
	defer close(f.todo)
	i := 0
	return jobs(func(j queryJob) bool {
		select {
		case f.window <- struct{}{}:
		case <-f.stop:
			return false
		}
		select {
		case f.todo <- fanJob{i, j}:
			i++
			return true
		case <-f.stop:
			return false
		}
	})
}

// collect writes the answers in job order as they come and returns the
// exit code they call for and the first error that stopped the fan-out.
func (f *fan) collect(w *bufio.Writer, cancel func()) (int, error) {
	pending := map[int]fanResult{}
	next, worst := 0, 0
	var firstErr error
	for r := range f.results {
		pending[r.i] = r
		for p, ok := pending[next]; ok; p, ok = pending[next] {
			delete(pending, next)
			next++
			<-f.window
			code, err := writeAnswer(w, p.i, p.job, p.resp, p.err)
			if code != 0 && (worst == 0 || code == exit.Limit) {
				worst = code
			}
			if err != nil && firstErr == nil {
				firstErr = err
				f.halt("")
				cancel()
			}
		}
		if len(pending) == 0 {
			w.Flush()
		}
	}
	return worst, firstErr
}

// writeAnswer writes the answer line of job i and returns the exit code
// it calls for, and an error that must stop the fan-out (the run is gone).
func writeAnswer(w io.Writer, i int, job queryJob, resp subquery.Response, err error) (int, error) {
	line := answerLine{Index: i, Text: resp.Text, Model: resp.Model, Usage: resp.Usage, CostUSD: resp.CostUSD, Error: resp.Error}
	if job.length > 0 {
		line.Offset, line.Length = &job.offset, &job.length
	}
	if err != nil {
		line.Error = &subquery.Error{Code: subquery.CodeProvider, Message: err.Error()}
	}
	b, _ := json.Marshal(line)
	if _, werr := w.Write(append(b, '\n')); werr != nil {
		return exit.BrokenPipe, exit.StdoutError{Err: werr}
	}
	switch {
	case err != nil:
		return exit.Failure, err
	case resp.Error != nil:
		return resp.Error.ExitCode(), nil
	}
	return 0, nil
}

// fanOutEnd is the error a fan-out ends with: a limit before anything
// else, then an interruption, a failure, a refused or failed request.
func fanOutEnd(ctx context.Context, worst int, firstErr, genErr error, stderr io.Writer) error {
	switch {
	case genErr != nil:
		return genErr
	case firstErr != nil:
		return firstErr
	case ctx.Err() != nil:
		return context.Cause(ctx)
	case worst == 0:
		return nil
	}
	msg := map[int]string{exit.Limit: "a limit of the run stopped the fan-out; the answers sent are above",
		exit.Usage: "some requests were refused (see their error)", 130: "interrupted", exit.Provider: "some requests failed (see their error)"}[worst]
	if msg == "" {
		msg = "some requests failed"
	}
	fmt.Fprintf(stderr, "rubichan query: %s\n", msg)
	return exit.Reported{Err: exit.CodeError{Code: worst, Err: fmt.Errorf("query: %s", msg)}}
}

// batchJobs reads JSONL requests from stdin; fields the line leaves out
// come from the flags.
func batchJobs(stdin io.Reader, q Options) func(func(queryJob) bool) error {
	return func(yield func(queryJob) bool) error {
		if !input.StdinUsable(stdin) {
			return exit.Usagef("--batch reads its requests from standard input, which is not a pipe or a file")
		}
		sc := bufio.NewScanner(stdin)
		sc.Buffer(make([]byte, 64<<10), subquery.MaxLine)
		for n := 1; sc.Scan(); n++ {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			req := q.request()
			dec := json.NewDecoder(bytes.NewReader(line))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&req); err != nil {
				return exit.Usagef("--batch: line %d: %v", n, err)
			}
			if req.File != "" {
				if abs, err := filepath.Abs(req.File); err == nil {
					req.File = abs
				}
			}
			if !yield(queryJob{req: req}) {
				return nil
			}
		}
		if err := sc.Err(); err != nil {
			return exit.Usagef("--batch: %v", err)
		}
		return nil
	}
}

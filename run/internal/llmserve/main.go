package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/rubichan/rubichan/llm/llmtest"
)

func main() {
	record := flag.String("record", "", "write each received request as JSON into `DIR`")
	urlFile := flag.String("url-file", "", "also write the base URL to `FILE`")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: llmserve [-record DIR] [-url-file FILE] SCRIPT.json")
		os.Exit(2)
	}
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "llmserve:", err)
		os.Exit(2)
	}
	script, err := llmtest.ParseScript(data)
	if err != nil {
		fmt.Fprintln(os.Stderr, "llmserve:", err)
		os.Exit(2)
	}
	srv := llmtest.NewServer(script)
	defer srv.Close()
	if *record != "" {
		if err := srv.RecordTo(*record); err != nil {
			fmt.Fprintln(os.Stderr, "llmserve:", err)
			os.Exit(1)
		}
	}
	if *urlFile != "" {
		if err := os.WriteFile(*urlFile, []byte(srv.URL()+"\n"), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, "llmserve:", err)
			os.Exit(1)
		}
	}
	fmt.Println(srv.URL())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	<-sigs
}

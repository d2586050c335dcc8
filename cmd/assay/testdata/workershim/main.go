// Command workershim is `assay` on the PATH of the shell steps of the CI
// examples that the testscripts run (ghstep, glstep, kubejob): it sends
// its arguments, environment and working directory to the test process
// over the Unix socket $ASSAY_TEST_SHIM_SOCKET, which runs the command in
// a worker (cmd/assay/inprocess_test.go), then prints the command's
// stdout and stderr and exits with its status. A start of this program
// costs a few milliseconds of CPU; a start of the test binary as assay
// costs tens. A command given stdin ("-" or /dev/stdin among its
// arguments) execs the test binary ($ASSAY_TEST_SHIM_REAL) instead: a
// worker's commands read no stdin.
//
// Run as assay-stub (a link to it, $ASSAY_TEST_STUB), it is a stand-in
// service a script starts in the background: `assay-stub NAME ADDR LOG`
// asks the test process to serve the stand-in NAME (judgestub, usagestub,
// convstub) on a goroutine until this process is sent SIGINT or SIGTERM,
// then prints what the stand-in printed and exits with its status. A
// script signals and waits for it as for the stand-in's own process.
//
// The test process installs it (go install, into the user's cache, so that
// it is linked again only when it changed);
// it lives under testdata so that go build ./... and go vet ./... leave
// it alone.
package main

import (
	"encoding/gob"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// The variables the test process sets (shimVar and shimRealVar of
// inprocess_test.go): test plumbing, not variables of the CLI.
const (
	socketVar = "ASSAY_TEST_SHIM_SOCKET"
	realVar   = "ASSAY_TEST_SHIM_REAL"
)

// request and reply are the test's workRequest and workReply (gob
// matches them by field name).
type request struct {
	Program string
	Args    []string
	Env     []string
	Dir     string
}

type reply struct {
	Code           int
	Stdout, Stderr []byte
}

func main() {
	if filepath.Base(os.Args[0]) == "assay-stub" {
		stub()
	}
	for _, a := range os.Args[1:] {
		if a == "-" || a == "/dev/stdin" {
			real := os.Getenv(realVar)
			err := syscall.Exec(real, append([]string{"assay"}, os.Args[1:]...), os.Environ())
			fmt.Fprintf(os.Stderr, "workershim: exec %s: %v\n", real, err)
			os.Exit(2)
		}
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "workershim: %v\n", err)
		os.Exit(2)
	}
	c, err := net.Dial("unix", os.Getenv(socketVar))
	if err != nil {
		fmt.Fprintf(os.Stderr, "workershim: %v\n", err)
		os.Exit(2)
	}
	var rep reply
	err = gob.NewEncoder(c).Encode(request{Args: os.Args[1:], Env: os.Environ(), Dir: dir})
	if err == nil {
		err = gob.NewDecoder(c).Decode(&rep)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "workershim: %v\n", err)
		os.Exit(2)
	}
	os.Stdout.Write(rep.Stdout)
	os.Stderr.Write(rep.Stderr)
	os.Exit(rep.Code)
}

// stub is the program assay-stub NAME ARGS...: the stand-in NAME served
// by the test process until a signal, when the write half of the
// connection is closed (which tells the test process to stop it).
func stub() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: assay-stub NAME ARGS...")
		os.Exit(2)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "assay-stub: %v\n", err)
		os.Exit(2)
	}
	c, err := net.Dial("unix", os.Getenv(socketVar))
	if err != nil {
		fmt.Fprintf(os.Stderr, "assay-stub: %v\n", err)
		os.Exit(2)
	}
	err = gob.NewEncoder(c).Encode(request{Program: os.Args[1], Args: os.Args[2:], Env: os.Environ(), Dir: dir})
	if err != nil {
		fmt.Fprintf(os.Stderr, "assay-stub: %v\n", err)
		os.Exit(2)
	}
	replies := make(chan error, 1)
	var rep reply
	go func() { replies <- gob.NewDecoder(c).Decode(&rep) }()
	select {
	case <-sig:
		c.(*net.UnixConn).CloseWrite()
		err = <-replies
	case err = <-replies: // the stand-in ended by itself (a usage error)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "assay-stub: %v\n", err)
		os.Exit(2)
	}
	os.Stdout.Write(rep.Stdout)
	os.Stderr.Write(rep.Stderr)
	os.Exit(rep.Code)
}

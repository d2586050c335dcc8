package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/corpus"
	"github.com/assay-eval/assay/internal/boundedfile"
)

// ManifestName is the manifest's file name, written beside the suite.
const ManifestName = "assay.manifest.json"

// ManifestSchema names the manifest's JSON shape.
const ManifestSchema = "assay.manifest/v1"

// Manifest records the sha256 of a suite's files so that a later lint or
// run can say which changed. One manifest serves every suite in its
// directory, keyed by the suite file's name.
type Manifest struct {
	Schema string                   `json:"schema"`
	Suites map[string]SuiteManifest `json:"suites"`
}

// SuiteManifest is one suite's entry.
type SuiteManifest struct {
	// Fingerprint is Fingerprint(suite) when the manifest was written.
	Fingerprint string `json:"fingerprint"`
	// Files maps each file's slash path, relative to the manifest's
	// directory, to the hex sha256 of its bytes.
	Files map[string]string `json:"files"`
}

// manifestFiles lists the files a suite is made of: the suite file (every
// file of a directory suite), its corpus files, its json_schema files and
// JSONL cases file (schemas, resolved), as paths relative to dir.
func manifestFiles(s *assay.Suite, schemas []string) ([]string, error) {
	var paths []string
	fi, err := os.Stat(s.Path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", s.Path, unwrapFSError(err))
	}
	if fi.IsDir() {
		err := filepath.WalkDir(s.Path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p != s.Path && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && d.Name() != ManifestName {
				paths = append(paths, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	} else {
		paths = append(paths, s.Path)
	}
	if s.CorpusSource != "" && s.CorpusSource != "inline" {
		if _, err := os.Stat(s.CorpusSource); err == nil {
			files, err := corpus.Files(s.CorpusSource)
			if err != nil {
				return nil, err
			}
			paths = append(paths, files...)
		}
	}
	paths = append(paths, schemas...)
	rels := make([]string, 0, len(paths))
	for _, p := range paths {
		rels = append(rels, manifestRel(s.Dir, p))
	}
	slices.Sort(rels)
	return slices.Compact(rels), nil
}

// manifestRel is p relative to dir, with forward slashes.
func manifestRel(dir, p string) string {
	if rel, err := filepath.Rel(dir, p); err == nil {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(p)
}

// manifestFile is the path of a recorded file: rel joined to dir, or rel
// itself when it is absolute (a file outside dir that has no relative path
// from it).
func manifestFile(dir, rel string) string {
	p := filepath.FromSlash(rel)
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

func manifestKey(s *assay.Suite) string { return manifestRel(s.Dir, s.Path) }

func readManifest(path string) (*Manifest, error) {
	b, err := boundedfile.ReadFile(path, boundedfile.Manifest)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: not a manifest: %v", path, err)
	}
	if m.Schema != ManifestSchema {
		return nil, fmt.Errorf("%s: not a manifest: schema %q (want %q)", path, m.Schema, ManifestSchema)
	}
	return &m, nil
}

// WriteManifest records the sha256 of the suite's file, every corpus file
// and every json_schema file in assay.manifest.json beside the suite
// (keeping other suites' entries) and returns the manifest's path.
func WriteManifest(s *assay.Suite) (string, error) {
	return writeManifest(s, Fingerprint(s), schemaPaths(s.Cases))
}

func writeManifest(s *assay.Suite, fingerprint string, schemas []string) (string, error) {
	if boundedfile.IsDescriptorPath(s.Path) {
		return "", fmt.Errorf("%s: a suite read from a pipe has no file a manifest could record; write the manifest of the suite file", s.Path)
	}
	mp := filepath.Join(s.Dir, ManifestName)
	files, err := manifestFiles(s, schemas)
	if err != nil {
		return "", err
	}
	entry := SuiteManifest{Fingerprint: fingerprint, Files: make(map[string]string, len(files))}
	for _, rel := range files {
		sum := fileSHA256(manifestFile(s.Dir, rel))
		if sum == "" {
			return "", fmt.Errorf("%s: cannot read it to record its sha256", rel)
		}
		entry.Files[rel] = sum
	}
	m, err := readManifest(mp)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			// It may hold other suites' entries: not overwritten unread.
			return "", fmt.Errorf("%v; %s", err, manifestUnreadableRemedy(s.Path))
		}
		m = &Manifest{}
	}
	m.Schema = ManifestSchema
	if m.Suites == nil {
		m.Suites = map[string]SuiteManifest{}
	}
	m.Suites[manifestKey(s)] = entry
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", err
	}
	b = append(b, '\n')
	tmp := mp + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, mp); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return mp, nil
}

// manifestUnreadableRemedy is what to do about a manifest that cannot be
// read: WriteManifest does not overwrite it.
func manifestUnreadableRemedy(suitePath string) string {
	return fmt.Sprintf("fix it, or delete it and run 'assay lint --write-manifest %s'", suitePath)
}

// schemaPaths are the resolved json_schema paths of cases, and the JSONL
// cases file they are in when it is not the suite file (manifestFiles).
func schemaPaths(cases []assay.Case) []string {
	var paths []string
	last := ""
	for _, c := range cases {
		if p := c.Expect.JSONSchemaPath; p != "" {
			paths = append(paths, p)
		}
		if f, _ := sourceLine(c.Source); f != last && isJSONLName(f) {
			paths, last = append(paths, f), f
		}
	}
	return paths
}

// CheckManifest compares the suite's files with assay.manifest.json beside
// it. It returns one warning per file that changed, disappeared or is new,
// worded as the remedy; nil when there is no manifest or it has no entry for
// this suite.
func CheckManifest(s *assay.Suite) []string { return checkManifest(s, schemaPaths(s.Cases)) }

// CheckManifestStreamed is CheckManifest of a suite Stream loaded, which
// needs not hold its cases: it knows their json_schema files.
func CheckManifestStreamed(st *Streamed) []string {
	if st.Suite.Cases != nil {
		return CheckManifest(st.Suite)
	}
	return checkManifest(st.Suite, st.manifestExtra())
}

func checkManifest(s *assay.Suite, schemas []string) []string {
	mp := filepath.Join(s.Dir, ManifestName)
	m, err := readManifest(mp)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return []string{fmt.Sprintf("%v; %s", err, manifestUnreadableRemedy(s.Path))}
	}
	entry, ok := m.Suites[manifestKey(s)]
	if !ok {
		return nil
	}
	remedy := fmt.Sprintf("review the change, then run 'assay lint --write-manifest %s'", s.Path)
	var warns []string
	current, err := manifestFiles(s, schemas)
	if err != nil {
		return []string{fmt.Sprintf("cannot list the suite's files to check %s: %v", ManifestName, err)}
	}
	for _, rel := range current {
		want, recorded := entry.Files[rel]
		if !recorded {
			warns = append(warns, fmt.Sprintf("%s is not recorded in %s: %s", rel, ManifestName, remedy))
			continue
		}
		if fileSHA256(manifestFile(s.Dir, rel)) != want {
			warns = append(warns, fmt.Sprintf("%s changed since %s was written: %s", rel, ManifestName, remedy))
		}
	}
	var gone []string
	for rel := range entry.Files {
		if !slices.Contains(current, rel) {
			gone = append(gone, rel)
		}
	}
	slices.Sort(gone)
	for _, rel := range gone {
		warns = append(warns, fmt.Sprintf("%s is recorded in %s but no longer part of the suite: %s", rel, ManifestName, remedy))
	}
	return warns
}

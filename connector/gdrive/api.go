package gdrive

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/sanadhq/sanad"
	"github.com/sanadhq/sanad/connector"
)

// Media types Drive gives its own objects.
const (
	FolderType   = "application/vnd.google-apps.folder"
	ShortcutType = "application/vnd.google-apps.shortcut"
	googleApps   = "application/vnd.google-apps."
)

// Export formats.
const (
	DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
	CSV  = "text/csv"
	PDF  = "application/pdf"
)

// DefaultExportTypes maps Google Workspace types to the format they are
// exported in. Drive exports only the first sheet of a spreadsheet as CSV.
var DefaultExportTypes = map[string]string{
	"application/vnd.google-apps.document":     DOCX,
	"application/vnd.google-apps.presentation": PPTX,
	"application/vnd.google-apps.spreadsheet":  CSV,
	"application/vnd.google-apps.drawing":      PDF,
}

// fileFields are the fields asked of each file.
const fileFields = "id,name,mimeType,modifiedTime,md5Checksum,size,trashed,owners(displayName,emailAddress),webViewLink"

// file is a Drive v3 File resource, with the fields asked.
type file struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	MimeType     string   `json:"mimeType"`
	ModifiedTime string   `json:"modifiedTime"`
	MD5Checksum  string   `json:"md5Checksum"`
	Size         intField `json:"size"`
	Trashed      bool     `json:"trashed"`
	Owners       []owner  `json:"owners"`
	WebViewLink  string   `json:"webViewLink"`
}

type owner struct {
	DisplayName  string `json:"displayName"`
	EmailAddress string `json:"emailAddress"`
}

// fileList is a Drive v3 FileList.
type fileList struct {
	NextPageToken    string `json:"nextPageToken"`
	IncompleteSearch bool   `json:"incompleteSearch"`
	Files            []file `json:"files"`
}

// intField is an int64 Drive sends as a JSON string ("size": "1024"); a
// number is accepted too, and null or "" is 0.
type intField int64

func (n *intField) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return nil
	}
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = b[1 : len(b)-1]
	}
	if len(b) == 0 {
		*n = 0
		return nil
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || v < 0 {
		return fmt.Errorf("size %q is not a byte count", b)
	}
	*n = intField(v)
	return nil
}

// modified returns the file's modification time, zero if Drive sent none
// or one that does not parse.
func (f file) modified() time.Time {
	t, err := time.Parse(time.RFC3339Nano, f.ModifiedTime)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// validID reports whether id looks like a Drive id: 1 to 256 letters,
// digits, '-' and '_'. Ids are spliced into queries and paths, so anything
// else is refused.
func validID(id string) bool {
	if id == "" || len(id) > 256 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// decodeList decodes a files.list response. Files with an invalid id are
// returned in bad, not in the list.
func decodeList(b []byte) (l fileList, bad int, err error) {
	if err := json.Unmarshal(b, &l); err != nil {
		return fileList{}, 0, err
	}
	kept := l.Files[:0]
	for _, f := range l.Files {
		if !validID(f.ID) {
			bad++
			continue
		}
		kept = append(kept, f)
	}
	l.Files = kept
	return l, bad, nil
}

// decodeFile decodes a files.get response.
func decodeFile(b []byte) (file, error) {
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return file{}, err
	}
	if !validID(f.ID) {
		return file{}, fmt.Errorf("id %q is not a Drive id", f.ID)
	}
	return f, nil
}

// apiError is the error body of Google APIs.
type apiError struct {
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
		Errors  []struct {
			Domain  string `json:"domain"`
			Reason  string `json:"reason"`
			Message string `json:"message"`
		} `json:"errors"`
	} `json:"error"`
}

// reason returns the first error reason of a Google API error body.
func reason(body []byte) string {
	var e apiError
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	for _, x := range e.Error.Errors {
		if x.Reason != "" {
			return x.Reason
		}
	}
	return ""
}

// classify gives the verdict on a Drive error: Drive answers 403 for rate
// limits (retried like 429) and for files it will not serve (refused by
// policy, not an authentication failure).
func classify(source string, status int, header http.Header, body []byte) connector.Verdict {
	r := reason(body)
	switch {
	case status == http.StatusForbidden && (r == "rateLimitExceeded" || r == "userRateLimitExceeded" || r == "sharingRateLimitExceeded"):
		return connector.Verdict{Code: sanad.CodeUnavailable, Retry: true, Message: fmt.Sprintf("Drive is rate limiting requests for %s (%s): try again later", source, r)}
	case status == http.StatusForbidden && r == "exportSizeLimitExceeded":
		return connector.Verdict{Code: sanad.CodePolicyDenied, Message: fmt.Sprintf("Drive does not export %s: it is over Drive's export size limit", source)}
	case status == http.StatusForbidden && (r == "fileNotDownloadable" || r == "cannotDownloadAbusiveFile" || r == "cannotExportFile"):
		return connector.Verdict{Code: sanad.CodePolicyDenied, Message: fmt.Sprintf("Drive refuses to serve the content of %s (%s)", source, r)}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		msg := fmt.Sprintf("Drive refused access to %s (HTTP %d", source, status)
		if r != "" {
			msg += ", " + r
		}
		return connector.Verdict{Code: sanad.CodeConnectorAuth, Message: msg + "): check the credentials and that the file is shared with them"}
	case status == http.StatusNotFound:
		return connector.Verdict{Code: sanad.CodeConnectorNotFound, Message: fmt.Sprintf("%s does not exist or is not shared with these credentials", source)}
	}
	return connector.ClassifyStatus(source, status, header, body)
}

package githubtest

// RevokeInstallationTokens revokes every live access token of an
// installation, as GitHub does when a token is revoked (DELETE
// /installation/token), the installation is suspended and resumed, or its
// permissions change. Requests with a revoked token get GitHub's 401 "Bad
// credentials"; a client must mint a new token. It returns how many tokens
// were revoked.
func (s *Server) RevokeInstallationTokens(installationID int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for v, t := range s.st.tokens {
		if t.inst.id == installationID {
			delete(s.st.tokens, v)
			n++
		}
	}
	return n
}

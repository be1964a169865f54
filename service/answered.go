package service

// answerBegun reports whether the status of the answer was written before
// the handler returned err (a client gone mid-answer, a broken stream): a
// second header would be refused by net/http ("superfluous
// response.WriteHeader") and an error body would corrupt the answer, so
// the error is only logged.
func answerBegun(s *Server, w *statusWriter, route string, err error) bool {
	if w.code == 0 {
		return false
	}
	s.log.Info("answer cut short", "route", route, "status", w.code, "err", err)
	return true
}

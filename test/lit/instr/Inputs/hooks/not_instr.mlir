func.func @f() {
  func.return
}

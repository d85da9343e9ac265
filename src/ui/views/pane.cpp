// src/ui/views/pane.cpp — the request on screen's figures, kept while the step and the
// model stay (ui/views/pane.h).
#include "ui/views/pane.h"

namespace ws::ui {

const RequestFigures& Pane::request() {
  if (!model) {
    rv_ = RequestFigures{};
    rv_model_.reset();
    return rv_;
  }
  if (rv_model_ != model || rv_step_ != step) {
    rv_ = model->request(step);
    rv_model_ = model;
    rv_step_ = step;
  }
  return rv_;
}

}  // namespace ws::ui

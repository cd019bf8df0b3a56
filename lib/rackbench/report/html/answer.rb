# frozen_string_literal: true

require_relative "escape"
require_relative "marks"
require_relative "../number_format"
require_relative "../answer_text"

module Rackbench
  module Report
    class Html
      # The page's headline, first under the header: per endpoint, the
      # terminal's answer line (AnswerText: at the highest level every setup
      # reached, the leader among the valid cells and the decision against
      # the next one, or why one round cannot decide). A cell measured under
      # foreign load carries "~", a cell left out as not valid "?", each with
      # its reason on hover and in the Warnings section.
      class Answer
        include Escape
        include Marks

        def initialize(dataset)
          @data = dataset
        end

        def entries
          @entries ||= @data.setups.size > 1 ? AnswerText.entries(@data.trials, @data.decisions, cells: @data.cells,
                                                                            attributions: AnswerText.attributions(@data)) : []
        end

        def render
          (+"").tap { |out| each_piece { |piece| out << piece } }
        end

        # The answer a list item at a time (one per endpoint: a huge run's
        # answer is never one String); nothing when there is no answer.
        def each_piece
          return if entries.empty?

          notes = AnswerText.footnotes(entries).map { |l| "<p class=\"note\">#{h(l)}</p>" }.join
          if entries.any? { |e| e.left_out.any? }
            notes += "<p class=\"note\">? = not valid (a trial too short for its latency, or Little's law failing): " \
                     "left out of the answer; <a href=\"#warnings\">why, and the -d it needs</a>.</p>"
          end
          yield "<ul class=\"answer\">"
          entries.each { |e| yield item(e) }
          yield "</ul><p class=\"note\">#{h(AnswerText::HEAD.chomp(':').sub('Answer ', ''))}</p>#{notes}"
        end

        private

        def item(entry)
          where = "<code>#{h(entry.endpoint)}</code> <span class=\"level\">#{h(entry.level)}</span> "
          left = entry.left_out.map { |c| "#{h(c.setup)}#{marks(c)}" }.join(", ")
          return "<li>#{where}<span class=\"muted\">no valid cell: #{left}</span></li>" unless entry.best
          return race_item(entry, where, left) if entry.race

          text = "#{where}<b>#{h(entry.best.setup)}</b> #{h(NumberFormat.rps(entry.best.rps.median))} req/s#{marks(entry.best)}"
          text += if entry.second
                    ", #{h(entry.second.setup)} #{h(NumberFormat.rps(entry.second.rps.median))}#{marks(entry.second)}: " \
                      "#{h(entry.versus)}"
                  else
                    " <span class=\"muted\">(#{entry.left_out.empty? ? 'the only setup' : 'the only valid cell'})</span>"
                  end
          text += " <span class=\"left-out\">left out, not valid: #{left}</span>" if entry.left_out.any?
          text += entry.why.map { |l| "<br><span class=\"why\">#{h(l)}</span>" }.join # run --profile: where it went
          "<li>#{text}</li>"
        end

        # A race's words, as the terminal says them (RaceText).
        def race_item(entry, where, left)
          text = "#{where}#{h(RaceText.line(entry.race, entry.ranked.to_h { |c| [c.setup, c] }))}"
          text += " <span class=\"left-out\">left out, not valid: #{left}</span>" if entry.left_out.any?
          "<li>#{text}</li>"
        end
      end
    end
  end
end

# frozen_string_literal: true

module Rackbench
  module Report
    # The fixed event vocabulary of a run. Listeners override what they need;
    # the runner and the CLI only ever talk to a Fanout of listeners.
    class Listener
      def run_started(_meta); end
      def setup_started(_setup, _repetition); end
      def warming_up(_setup, _url); end
      def trial_started(_trial, _index, _total); end
      def trial_finished(_record, _index, _total); end
      def setup_failed(_record); end
      def warning(_text); end
      def note(_text); end # progress worth a line (run --decide's rounds), not a warning
      def run_finished(_store); end
    end

    # Sends each event to every listener (benchmark-ips' MultiReport idea);
    # --quiet simply leaves the terminal listener out.
    class Fanout < Listener
      attr_reader :listeners

      def initialize(*listeners)
        super()
        @listeners = listeners.flatten
      end

      Listener.public_instance_methods(false).each do |event|
        define_method(event) { |*args| @listeners.each { |l| l.public_send(event, *args) } }
      end
    end
  end
end

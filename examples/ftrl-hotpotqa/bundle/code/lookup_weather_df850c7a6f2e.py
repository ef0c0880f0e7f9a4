import json

def lookup_weather_df850c7a6f2e(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
